/**
 * Exact JSON for plant ids, both ways: one reader and one writer, shared by the server (request
 * bodies, answers), the client (requests, answers, webhook events) and the CLI (JSONL lines).
 *
 * `JSON.parse` turns every number into a double, so ids above 2^53 lose digits
 * (9007199254740993 becomes 9007199254740992) and a fraction such as 1.0000000000000001 becomes the
 * integer 1; `JSON.stringify` throws on a bigint. The reader keeps `JSON.parse` for syntax and
 * every other value, then walks the source text once, beside the parsed value, and replaces the
 * value of every `id` member, at any depth, by its exact integer. (lossless-json was measured and
 * left out: 3.5× slower than this, and it refuses duplicate keys and assigns `__proto__`, both of
 * which would change what the API accepts.)
 */

const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]{0,18})$/;

/** Beyond every int64: what an integer literal too large to matter becomes (keeps its sign). */
const TOO_LARGE = 2n ** 64n;

/**
 * The exact value of a JSON number literal when it is an integer (`5`, `-0`, `5.0`, `50e-1`,
 * `1E3`): a bigint, clamped to ±2^64 when its magnitude is larger than any int64. A literal with a
 * non-zero fraction yields NaN, so that validation reports "must be an integer".
 */
export function exactIntegerOf(literal: string): bigint | number {
  // The common case, a plain integer of at most 19 digits, needs no arithmetic.
  if (PLAIN_INTEGER.test(literal)) return BigInt(literal);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return Number.NaN;
  const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
  let digits = (whole + fraction).replace(/^0+/, "");
  if (digits === "") return 0n;
  // value = digits × 10^scale
  let scale = Number(exponentText) - fraction.length;
  if (!Number.isSafeInteger(scale)) return scale > 0 ? signed(sign, TOO_LARGE) : Number.NaN;
  const trailingZeros = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailingZeros);
  scale += trailingZeros;
  if (scale < 0) return Number.NaN; // a non-zero digit after the decimal point
  if (digits.length + scale > 20) return signed(sign, TOO_LARGE);
  return signed(sign, BigInt(digits) * 10n ** BigInt(scale));
}

function signed(sign: string, magnitude: bigint): bigint {
  return sign === "-" ? -magnitude : magnitude;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** `i` is at an opening quote; returns the index just after the closing quote. */
function endOfString(text: string, i: number): number {
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return text.length;
    // The quote closes the string unless an odd number of backslashes escapes it.
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i + 1;
  }
}

/** `i` is at a number, `true`, `false` or `null`; returns the index just after it. */
function endOfScalar(text: string, i: number): number {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c <= 0x20) return i;
  }
  return i;
}

/** The key whose source is `text[start, end)` (quotes included), escapes decoded. */
function keyOf(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/** True when the key whose source is `text[start, end)` is `id`; cheap for every other key. */
function isIdKey(text: string, start: number, end: number): boolean {
  if (end - start === 4) return text.charCodeAt(start + 1) === 0x69 && text.charCodeAt(start + 2) === 0x64; // "id"
  // Only an escaped spelling (`"\\u0069d"`) of a longer source can still be "id".
  for (let k = start + 1; k < end - 1; k++)
    if (text.charCodeAt(k) === BACKSLASH) return keyOf(text, start, end) === "id";
  return false;
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

/**
 * Walks the JSON value that starts at `i` (valid JSON, already parsed into `value`) and makes the
 * `id` members inside it exact. Returns the index just after the value. A duplicate key is walked
 * each time it occurs; the last occurrence is walked last and wins, as in `JSON.parse`.
 */
function walk(text: string, i: number, value: unknown): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return endOfString(text, i);
  if (first === OPEN_BRACE) {
    const object = (isContainer(value) && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    i = skipWhitespace(text, i + 1);
    while (text.charCodeAt(i) === QUOTE) {
      const keyStart = i;
      const keyEnd = endOfString(text, i);
      i = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1); // past ":"
      const c = text.charCodeAt(i);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        const key = keyOf(text, keyStart, keyEnd);
        i = walk(text, i, Object.hasOwn(object, key) ? object[key] : undefined);
      } else if (isIdKey(text, keyStart, keyEnd) && (typeof object.id === "number" || typeof object.id === "bigint")) {
        const end = endOfScalar(text, i);
        object.id = exactIntegerOf(text.slice(i, end));
        i = end;
      } else {
        i = c === QUOTE ? endOfString(text, i) : endOfScalar(text, i);
      }
      i = skipWhitespace(text, i);
      if (text.charCodeAt(i) === COMMA) i = skipWhitespace(text, i + 1);
    }
    return i + 1; // past "}"
  }
  if (first === OPEN_BRACKET) {
    const array = Array.isArray(value) ? value : [];
    i = skipWhitespace(text, i + 1);
    for (let index = 0; text.charCodeAt(i) !== CLOSE_BRACKET && i < text.length; index++) {
      i = skipWhitespace(text, walk(text, i, array[index]));
      if (text.charCodeAt(i) === COMMA) i = skipWhitespace(text, i + 1);
    }
    return i + 1; // past "]"
  }
  return endOfScalar(text, i);
}

export class MalformedJsonError extends Error {
  override readonly name = "MalformedJsonError";
}

/**
 * Parses JSON with every `id` member exact: an integer literal (`5`, `5.0`, `5e0`) becomes a
 * bigint, clamped beyond ±2^64; a literal with a fraction becomes NaN, so that validation says
 * "must be an integer". Every other value is what `JSON.parse` gives. Throws MalformedJsonError for
 * text that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedJsonError((error as Error).message);
  }
  if (isContainer(value)) walk(text, skipWhitespace(text, 0), value);
  return value;
}

/**
 * `JSON.stringify` that writes every `bigint` as an exact JSON integer literal (`JSON.stringify`
 * throws on a bigint, and converting an id above 2^53 to a number would round it).
 *
 * Plain data, which is what every answer, request body and CLI line is (objects and arrays of
 * strings, numbers, booleans, null and bigints), is written by a walk of its own. Anything else (a
 * `toJSON`, a class instance, a boxed primitive, a cycle, nesting deeper than any message of ours)
 * goes to `JSON.stringify` with a replacer, which knows every rule of JSON's. Both write the same
 * bytes (exact-json.test.ts holds the walk to `JSON.stringify`); the walk is 2–3× faster, because a
 * replacer takes `JSON.stringify` off its fast path for every value it visits (a 100-plant page:
 * 59 µs with the replacer, 31 µs walked; one plant 1.38 against 0.39 µs).
 */
export function stringifyExactJson(value: unknown): string {
  const text = writePlain(value, 0);
  if (text === NOT_PLAIN) return stringifyWithReplacer(value);
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text;
}

/** What `writePlain` answers for a value it leaves to `JSON.stringify`. */
const NOT_PLAIN = Symbol("not plain data");

/** Deeper than this, the walk hands over (and `JSON.stringify` reports a cycle as a TypeError). */
const MAX_PLAIN_DEPTH = 64;

/** The JSON text of plain data, undefined where JSON has none (as `JSON.stringify`), or NOT_PLAIN. */
function writePlain(value: unknown, depth: number): string | undefined | typeof NOT_PLAIN {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      if (value === null) return "null";
      if (depth >= MAX_PLAIN_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return NOT_PLAIN;
      return Array.isArray(value) ? writeArray(value, depth) : writeObject(value, depth);
    default:
      return undefined; // undefined, a function or a symbol
  }
}

function writeArray(items: unknown[], depth: number): string | typeof NOT_PLAIN {
  if (Object.getPrototypeOf(items) !== Array.prototype) return NOT_PLAIN;
  let text = "[";
  for (let i = 0; i < items.length; i++) {
    const item = writePlain(items[i], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    text += `${i === 0 ? "" : ","}${item ?? "null"}`;
  }
  return `${text}]`;
}

function writeObject(object: object, depth: number): string | typeof NOT_PLAIN {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  let text = "{";
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const member = writePlain((object as Record<string, unknown>)[key], depth + 1);
    if (member === NOT_PLAIN) return NOT_PLAIN;
    if (member === undefined) continue;
    text += `${text.length === 1 ? "" : ","}${JSON.stringify(key)}:${member}`;
  }
  return `${text}}`;
}

/**
 * A marker no caller can predict (random per process): a bigint is first written as a string
 * `"<marker><digits>"`, and only those strings are then turned into bare digits, so no string in
 * the value can be mistaken for one.
 */
const MARKER = `bigint-${randomHex(16)}:`;
const MARKED_BIGINT = new RegExp(`"${MARKER}(-?\\d+)"`, "g");

/**
 * `bytes` random bytes as hex. `crypto.getRandomValues`, not `crypto.randomUUID`: browsers offer
 * `randomUUID` only in secure contexts, so a page served over plain HTTP from a LAN address would
 * fail to load the contract at all.
 */
function randomHex(bytes: number): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
}

/** Any value `JSON.stringify` can write, bigints exact. */
function stringifyWithReplacer(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "bigint") return item;
    sawBigint = true;
    return `${MARKER}${item.toString()}`;
  });
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return sawBigint ? text.replace(MARKED_BIGINT, "$1") : text;
}
