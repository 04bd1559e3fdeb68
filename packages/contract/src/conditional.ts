import { checked, notText, Refused } from "./checked.js";
import { openApiMeta } from "./openapi-meta.js";

/**
 * Conditional requests (RFC 9110 §8.8.3, §13). `GET` and `PUT /plants/{id}` answer with a strong
 * `ETag`; `If-Match` on `PUT` and `DELETE` makes the change only while the plant is still the one
 * the client read (a lost update is a 412 instead), `If-None-Match` on `GET` answers 304 when the
 * client's copy is current, and on `PUT` and `DELETE` makes the change only while the plant is not
 * one of those versions (`*`: does not exist), a 412 otherwise (RFC 9110 §13.1.2).
 */
export const ETAG_HEADER = "ETag";

/**
 * What an `If-Match` or `If-None-Match` field holds: `*` (any current representation), or the
 * entity tags listed. `opaque` is the tag between its quotes; `weak` when it carried `W/`.
 */
export type EntityTags = "*" | ReadonlyArray<{ weak: boolean; opaque: string }>;

/** One entity tag (RFC 9110 §8.8.3) where the scan stands: `W/`?, then a quoted run of etagc (no space, `"` or control). */
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"/y;
/** Optional whitespace, a comma, optional whitespace (RFC 9110 §5.6.1 lists, empty elements allowed). */
const LIST_SEPARATOR = /[ \t]*,[ \t,]*/y;

/**
 * Parses an `If-Match` / `If-None-Match` field value: `*` or a comma-separated list of entity tags.
 * Undefined when the value is neither: the request is refused (400) rather than guessed at. One
 * scan from left to right (sticky expressions that never look back): linear in the value.
 */
export function parseEntityTags(value: string): EntityTags | undefined {
  const text = value.trim();
  if (text === "*") return "*";
  const tags: Array<{ weak: boolean; opaque: string }> = [];
  let at = 0;
  LIST_SEPARATOR.lastIndex = 0;
  if (LIST_SEPARATOR.test(text)) at = LIST_SEPARATOR.lastIndex; // a list may begin with empty elements
  while (at < text.length) {
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(text);
    if (tag === null) return undefined;
    tags.push({ weak: tag[1] !== undefined, opaque: tag[2]! });
    at = ENTITY_TAG.lastIndex;
    if (at === text.length) break;
    LIST_SEPARATOR.lastIndex = at;
    if (!LIST_SEPARATOR.test(text)) return undefined;
    at = LIST_SEPARATOR.lastIndex;
  }
  return tags.length === 0 ? undefined : tags;
}

/** `*` or a list of entity tags, as the OpenAPI documents state it (parseEntityTags is the rule applied). */
const CONDITION_PATTERN = '^ *(\\*|(W/)?"[^"\\u0000-\\u0020\\u007F]*"( *, *(W/)?"[^"\\u0000-\\u0020\\u007F]*")*) *$';

/** The longest condition field accepted: a client holds one tag, a few at most. */
const CONDITION_MAX_LENGTH = 1024;

function conditionHeader(description: string) {
  return openApiMeta(
    checked<EntityTags, string>((value) => {
      if (typeof value !== "string") return notText(value);
      const tags = value.length <= CONDITION_MAX_LENGTH ? parseEntityTags(value) : undefined;
      return (
        tags ??
        new Refused(
          `must be * or a comma-separated list of quoted entity tags such as "abc" (at most ${CONDITION_MAX_LENGTH} characters)`,
        )
      );
    }).optional(),
    {
      type: "string",
      maxLength: CONDITION_MAX_LENGTH,
      pattern: CONDITION_PATTERN,
      description,
      example: '"3q2-7wAAAAAAAAAAAAAAAA"',
    },
  );
}

/** `If-Match`: change the plant only while its ETag is one of these (strong comparison), or exists at all (`*`). */
export const IfMatchHeader = conditionHeader(
  "Make the change only if the plant's current ETag is one of these (strong comparison), or, with `*`, only if the plant exists. Otherwise the answer is 412 PRECONDITION_FAILED and nothing changes. Send the ETag of the plant you read, so that a change someone else made in between is not overwritten.",
);

/** `If-None-Match`: answer 304 when the plant's current ETag is one of these (weak comparison), or exists (`*`). */
export const IfNoneMatchHeader = conditionHeader(
  "Answer 304 Not Modified (no body) when the plant's current ETag is one of these (weak comparison), or, with `*`, whenever the plant exists.",
);

/** `If-None-Match` on a change: make it only when the plant's current ETag is none of these (weak comparison), or no plant has the id (`*`). */
export const IfNoneMatchChangeHeader = conditionHeader(
  "Make the change only if the plant's current ETag is none of these (weak comparison), or, with `*`, only if no plant has this id. Otherwise the answer is 412 PRECONDITION_FAILED and nothing changes. Checked after If-Match when both are sent.",
);

/** The quoted form of an entity tag, as the `ETag` header carries it. */
export function quoteEntityTag(opaque: string): string {
  return `"${opaque}"`;
}
