import { checked, notText, Refused } from "./checked.js";
import { openApiMeta } from "./openapi-meta.js";
import { z } from "zod";

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Limits in Unicode code points (as JSON Schema's minLength/maxLength count them). */
export const NAME_MAX_LENGTH = 256;
export const TAG_MAX_LENGTH = 64;

/**
 * C0 and C1 control characters (U+0000–U+001F, U+007F–U+009F), as an ECMA-262 pattern that is
 * also valid in the OpenAPI document.
 */
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/;
const NO_CONTROL_CHARACTERS_PATTERN = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";
/** A UTF-16 surrogate that is not half of a pair: not well-formed Unicode, unstorable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the text holds a lone surrogate (not well-formed Unicode; UTF-8 cannot carry it). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/**
 * Response header on every 200 of POST /plants: `created`, or `replayed` for an identical repeat
 * (the body alone cannot tell them apart). Documented in the OpenAPI document.
 */
export const OUTCOME_HEADER = "Plant-Store-Outcome";

function codePointLength(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

function plantText(maxLength: number, description: string, example: string) {
  const schema = checked<string>((value) => {
    if (value === undefined) return new Refused("is required");
    if (typeof value !== "string") return new Refused("must be a string");
    const problems: string[] = [];
    const length = codePointLength(value);
    if (length < 1) problems.push("must not be empty");
    else if (length > maxLength) problems.push(`must be at most ${maxLength} characters`);
    if (CONTROL_CHARACTER.test(value)) problems.push("must not contain control characters");
    if (hasLoneSurrogate(value)) problems.push("must be well-formed Unicode (no lone surrogates)");
    return problems.length === 0 ? value : new Refused(...problems);
  });
  return openApiMeta(schema, {
    type: "string",
    minLength: 1,
    maxLength,
    pattern: NO_CONTROL_CHARACTERS_PATTERN,
    description: `${description} 1–${maxLength} Unicode characters, well-formed, no control characters (U+0000–U+001F, U+007F–U+009F).`,
    example,
  });
}

function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * The plant id: an exact signed 64-bit integer. Clients may pass a `number` (a safe integer) or a
 * `bigint`; the server's body reader yields a `bigint` for every integer literal so that ids above
 * 2^53 keep every digit. The parsed value is always a `bigint`.
 */
export const PlantId = openApiMeta(
  checked<bigint, number | bigint>((value) => {
    if (value === undefined) return new Refused("is required");
    if (typeof value === "bigint") {
      return isInt64(value) ? value : new Refused("must be between -2^63 and 2^63-1 (int64)");
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value) || !Number.isInteger(value)) return new Refused("must be an integer");
      // A JS number beyond 2^53 may already have lost digits: only a bigint is exact there.
      if (!Number.isSafeInteger(value)) {
        return new Refused("must be a safe integer when given as a number; pass ids beyond 2^53 as bigint");
      }
      return BigInt(value);
    }
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return new Refused(`must be an integer, not ${kind}`);
  }),
  {
    type: "integer",
    format: "int64",
    description:
      "Identification number of the plant, chosen by the client: an integer from -9223372036854775808 to 9223372036854775807, kept exact (never rounded to a double).",
    example: 7,
  },
);

export const PlantName = plantText(NAME_MAX_LENGTH, "The name of the plant.", "Monstera deliciosa");
export const PlantTag = plantText(TAG_MAX_LENGTH, "Tag that specifies the type of the plant.", "indoor");

/**
 * A plant id in a path (`/plants/{id}`) or a query (`after`): a canonical decimal integer
 * (`-?(0|[1-9][0-9]*)`, no sign `+`, no leading zero, no fraction or exponent) within int64.
 */
const CANONICAL_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

function idText(description: string) {
  return openApiMeta(
    checked<bigint, string>((value) => {
      if (typeof value !== "string") return notText(value);
      if (!CANONICAL_INTEGER.test(value) || value.length > 20 || !isInt64(BigInt(value))) {
        return new Refused(
          "must be a decimal integer from -9223372036854775808 to 9223372036854775807 (no sign +, no leading zeros)",
        );
      }
      return BigInt(value);
    }),
    { type: "integer", format: "int64", description, example: 7 },
  );
}

/** The `{id}` of `/plants/{id}`. */
export const PlantIdPath = idText("The plant's id: a decimal int64, kept exact.");

/** Plants a page may hold at most, and how many it holds when `limit` is not given. */
export const LIST_LIMIT_MAX = 1000;
export const LIST_LIMIT_DEFAULT = 100;

/** The orders a page can be in: by id, ascending (the default) or descending. */
export const LIST_ORDERS = ["asc", "desc"] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

/**
 * Response header of `GET /plants?count=true`: how many plants match the filters, counted up to
 * LIST_COUNT_MAX: the exact number (`0` … `1000`), or `>1000` when more match. Counting is bounded so
 * that it costs the same in a store of any size (an exact count reads every matching row).
 */
export const COUNT_HEADER = "Plant-Store-Count";
export const LIST_COUNT_MAX = 1000;

/** The value of COUNT_HEADER for `counted` plants, of which at most LIST_COUNT_MAX + 1 were counted. */
export function countHeaderValue(counted: number): string {
  return counted > LIST_COUNT_MAX ? `>${LIST_COUNT_MAX}` : String(counted);
}

/**
 * A COUNT_HEADER value read back: `{ count, more: false }` for an exact count, `{ count:
 * LIST_COUNT_MAX, more: true }` for `>1000`; undefined when it is neither.
 */
export function parseCountHeader(value: string): { count: number; more: boolean } | undefined {
  const match = /^(>)?(0|[1-9][0-9]{0,8})$/.exec(value);
  if (match === null) return undefined;
  return { count: Number(match[2]), more: match[1] === ">" };
}

/** The query of `GET /plants`. Every value arrives as text; unknown parameters are refused. */
export const ListPlantsQuery = z
  .object({
    limit: openApiMeta(
      checked<number, string>((value) => {
        if (typeof value !== "string") return notText(value);
        return /^[1-9][0-9]{0,3}$/.test(value) && Number(value) <= LIST_LIMIT_MAX
          ? Number(value)
          : new Refused(`must be an integer from 1 to ${LIST_LIMIT_MAX}`);
      }).optional(),
      {
        type: "integer",
        format: "int32",
        minimum: 1,
        maximum: LIST_LIMIT_MAX,
        default: LIST_LIMIT_DEFAULT,
        description: `How many plants a page holds at most (1–${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}).`,
      },
    ),
    after: idText(
      "Only plants after this id in the page order (`order=asc`: a greater id; `desc`: a smaller one): the id of the last plant of the previous page.",
    ).optional(),
    order: openApiMeta(z.enum(LIST_ORDERS, { errorMap: () => ({ message: "must be asc or desc" }) }).optional(), {
      default: "asc",
      description:
        "The page order: `asc` (ascending signed id, -2^63 first; the default) or `desc` (descending id). `after` moves forward in this order.",
    }),
    tag: plantText(TAG_MAX_LENGTH, "Only plants with exactly this tag.", "indoor").optional(),
    name: plantText(
      NAME_MAX_LENGTH,
      "Only plants whose name starts with this text. ASCII letters match either case (A–Z = a–z); every other character matches only itself (no Unicode case folding, no normalisation; `%` and `_` are plain characters, not wildcards).",
      "mon",
    ).optional(),
    count: openApiMeta(
      checked<boolean, "true" | "false">((value) =>
        value === "true" || value === "false" ? value === "true" : new Refused("must be true or false"),
      ).optional(),
      {
        type: "string",
        enum: ["true", "false"],
        default: "false",
        description: `With \`true\`, the answer's ${COUNT_HEADER} header counts the plants that match \`tag\` and \`name\` (on every page, not only this one): the exact number up to ${LIST_COUNT_MAX}, or \`>${LIST_COUNT_MAX}\` above (counting is bounded, so it stays cheap in a store of any size).`,
      },
    ),
  })
  .strict();
export type ListPlantsQuery = z.output<typeof ListPlantsQuery>;
/** The query as sent: every value text (what a client puts in the URL). */
export type ListPlantsQueryInput = z.input<typeof ListPlantsQuery>;

/** A plant as the store answers it: the id is not part of it (spec rule 1). */
export const Plant = openApiMeta(
  z.object({
    name: PlantName,
    tag: PlantTag.optional(),
  }),
  { title: "Plant", example: { name: "Monstera deliciosa", tag: "indoor" } },
);

/**
 * A stored plant as reads answer it: its id (an exact int64), name and tag. It also satisfies the
 * specification's Plant schema, which does not forbid more members.
 */
export const StoredPlant = openApiMeta(
  z.object({
    id: PlantId,
    name: PlantName,
    tag: PlantTag.optional(),
  }),
  { title: "StoredPlant", example: { id: 7, name: "Monstera deliciosa", tag: "indoor" } },
);

/** The body of POST /plants. Unknown fields are refused, never silently dropped. */
export const NewPlant = openApiMeta(
  z
    .object({
      id: PlantId,
      name: PlantName,
      tag: PlantTag.optional(),
    })
    .strict(),
  { title: "NewPlant", example: { id: 7, name: "Monstera deliciosa", tag: "indoor" } },
);

/**
 * The body of PUT /plants/{id}: the Plant schema (`name`, `tag` optional), the whole plant as it is
 * to be. Unknown fields are refused, as in NewPlant; the id is the path's.
 */
export const PlantUpdate = openApiMeta(
  z
    .object({
      name: PlantName,
      tag: PlantTag.optional(),
    })
    .strict(),
  {
    title: "PlantUpdate",
    description:
      "A Plant as the body of PUT /plants/{id}: the plant's new name and tag, replacing both (a body without `tag` removes the tag). Unknown fields are refused.",
    example: { name: "Monstera deliciosa", tag: "indoor" },
  },
);

/** What a client passes: `id` as number or bigint. */
export type NewPlantInput = z.input<typeof NewPlant>;
/** What the server works with: `id` as an exact bigint. */
export type NewPlant = z.output<typeof NewPlant>;
export type Plant = z.output<typeof Plant>;
export type PlantUpdate = z.output<typeof PlantUpdate>;
export type StoredPlant = z.output<typeof StoredPlant>;
