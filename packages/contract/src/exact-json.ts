/**
 * JSON parsing that keeps the top-level `id` exact. Shared by the server (request bodies) and the
 * CLI (JSONL lines), so that both accept exactly the same ids.
 *
 * `JSON.parse` turns every number into a double, so ids above 2^53 lose digits
 * (9007199254740993 becomes 9007199254740992) and a fraction such as 1.0000000000000001 becomes the
 * integer 1. The fast path stays `JSON.parse` for syntax and every other value; the source text of
 * the top-level `id` member is then found with a small scanner and converted exactly.
 */

/** Beyond every int64: what an integer literal too large to matter becomes (keeps its sign). */
const TOO_LARGE = 2n ** 64n;

/**
 * The exact value of a JSON number literal when it is an integer (`5`, `-0`, `5.0`, `50e-1`,
 * `1E3`): a bigint, clamped to ±2^64 when its magnitude is larger than any int64. A literal with a
 * non-zero fraction yields NaN, so that validation reports "must be an integer".
 */
export function exactIntegerOf(literal: string): bigint | number {
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
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return i;
}

/** `i` is at the first character of a value; returns the index just after it. */
function endOfValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return endOfString(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = endOfString(text, i) - 1;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
    }
    return i;
  }
  // number, true, false, null
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c <= 0x20) return i;
  }
  return i;
}

/**
 * The source text of the value of `key` in the top-level object of `text`, which must already be
 * known to be valid JSON whose top level is an object. The last occurrence wins, as in `JSON.parse`.
 */
export function topLevelValueSource(text: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipWhitespace(text, 0) + 1; // past "{"
  for (;;) {
    i = skipWhitespace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return found; // "}" or end
    const keyEnd = endOfString(text, i);
    const rawKey = text.slice(i + 1, keyEnd - 1);
    const name = rawKey.includes("\\") ? (JSON.parse(text.slice(i, keyEnd)) as string) : rawKey;
    i = skipWhitespace(text, keyEnd) + 1; // past ":"
    i = skipWhitespace(text, i);
    const valueEnd = endOfValue(text, i);
    if (name === key) found = text.slice(i, valueEnd);
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) === COMMA) i++;
  }
}

export class MalformedJsonError extends Error {
  override readonly name = "MalformedJsonError";
}

/**
 * Parses a request body. Throws MalformedJsonError for text that is not JSON. When the top level
 * is an object with a numeric `id`, that id is replaced by its exact value (see `exactIntegerOf`).
 */
export function parseJsonWithExactId(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedJsonError((error as Error).message);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (typeof record.id === "number") {
      const source = topLevelValueSource(text, "id");
      if (source !== undefined) record.id = exactIntegerOf(source);
    }
  }
  return value;
}
