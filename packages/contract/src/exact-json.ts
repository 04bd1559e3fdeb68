/**
 * Exact JSON for plant ids, both ways: one reader and one writer, shared by the server (request
 * bodies, answers), the client (requests, answers, webhook events) and the CLI (JSONL lines).
 *
 * `JSON.parse` turns every number into a double, so ids above 2^53 lose digits
 * (9007199254740993 becomes 9007199254740992) and a fraction such as 1.0000000000000001 becomes the
 * integer 1; `JSON.stringify` throws on a bigint.
 *
 * The reader is one iterative scanner over the text: it checks the syntax, builds the value and
 * reads the value of every `id` member, at any depth, as an exact integer, in one pass whose cost
 * is linear in the text whatever its shape. It holds three limits of its own, because the text
 * comes from anyone who may write: nesting is at most MAX_JSON_DEPTH deep (no recursion, so depth
 * never meets the call stack), a member name appears once per object (`JSON.parse` keeps the last
 * and silently drops the others), and an id's number is at most MAX_ID_LITERAL_LENGTH characters
 * before any arithmetic is done on it. Every other value is what `JSON.parse` gives (strings with
 * escapes are decoded by `JSON.parse` itself, numbers by `Number`, both correctly rounded as it).
 * (lossless-json was measured and left out: 3.5× slower, and it assigns `__proto__`.)
 *
 * The platform's own tools for exact numbers (Node 22+: `JSON.parse`'s reviver sees each number's
 * source text as `context.source`; `JSON.rawJSON` writes a literal as it is) were measured against
 * this reader and the writer below and left out (callgrind, Node 24, instructions per call over
 * N = 2,000 calls, or 200 for pages): a reviver that makes every `id` a BigInt parses a create body
 * in 22,610 against the reader's 51,560, but cannot see a repeated member name (the reviver only
 * sees the last) nor bound the depth, so the reader's pass would still be needed before it; and it
 * parses a 100-plant page in 2,027,037 against 726,331 (a call per value). A `JSON.rawJSON`
 * replacer writes one plant in 11,935 against the walk's 7,837, and a page in 689,404 against
 * 773,163: not enough to keep two writers, and the web app's browsers may lack `JSON.rawJSON`.
 */

/** The deepest nesting the reader accepts: every message of ours needs at most 4 levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * The longest number literal the reader accepts for an `id`: int64 needs 20 characters; this
 * leaves room for `5.000` or `50e-1` spellings while bounding every id's arithmetic.
 */
export const MAX_ID_LITERAL_LENGTH = 64;

/** Beyond every int64: what an integer literal too large to matter becomes (keeps its sign). */
const TOO_LARGE = 2n ** 64n;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** The index of the first character at or after `i` that is not a decimal digit. */
function skipDigits(text: string, i: number): number {
  while (isDigit(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The exact value of a JSON number literal when it is an integer (`5`, `-0`, `5.0`, `50e-1`,
 * `1E3`): a bigint, clamped to ±2^64 when its magnitude is larger than any int64. A literal with a
 * non-zero fraction (or no JSON number at all) yields NaN, so that validation reports "must be an
 * integer". Linear in the literal; the only arithmetic is on at most 20 significant digits.
 */
export function exactIntegerOf(literal: string): bigint | number {
  const negative = literal.charCodeAt(0) === MINUS;
  const wholeStart = negative ? 1 : 0;
  const wholeEnd = skipDigits(literal, wholeStart);
  if (wholeEnd === wholeStart) return Number.NaN;
  let fractionEnd = wholeEnd;
  if (literal.charCodeAt(wholeEnd) === DOT) {
    fractionEnd = skipDigits(literal, wholeEnd + 1);
    if (fractionEnd === wholeEnd + 1) return Number.NaN;
  }
  let exponent = 0;
  if (fractionEnd < literal.length) {
    const e = literal.charCodeAt(fractionEnd);
    if (e !== LOWER_E && e !== UPPER_E) return Number.NaN;
    const sign = literal.charCodeAt(fractionEnd + 1);
    const digitsStart = fractionEnd + (sign === PLUS || sign === MINUS ? 2 : 1);
    const end = skipDigits(literal, digitsStart);
    if (end === digitsStart || end !== literal.length) return Number.NaN;
    exponent = Number(literal.slice(fractionEnd + 1, end)); // Infinity when absurdly long: still right
  }
  // value = digits × 10^scale, with digits the whole and fraction digits without the point
  const digits = literal.slice(wholeStart, wholeEnd) + literal.slice(wholeEnd + 1, fractionEnd);
  const fractionLength = fractionEnd === wholeEnd ? 0 : fractionEnd - wholeEnd - 1;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === ZERO) first++;
  if (first === digits.length) return 0n;
  let last = digits.length - 1;
  while (digits.charCodeAt(last) === ZERO) last--;
  const scale = exponent - fractionLength + (digits.length - 1 - last); // trailing zeros move to the scale
  if (!Number.isSafeInteger(scale)) return scale > 0 ? signed(negative, TOO_LARGE) : Number.NaN;
  if (scale < 0) return Number.NaN; // a non-zero digit after the decimal point
  const significant = last + 1 - first;
  if (significant + scale > 20) return signed(negative, TOO_LARGE);
  return signed(negative, BigInt(digits.slice(first, last + 1)) * 10n ** BigInt(scale));
}

function signed(negative: boolean, magnitude: bigint): bigint {
  return negative ? -magnitude : magnitude;
}

/** Text the reader refuses: not JSON, or beyond one of its limits. The message says where. */
export class MalformedJsonError extends Error {
  override readonly name = "MalformedJsonError";
}

/** An open object or array, with the member name whose value is being read (objects only). */
interface Frame {
  readonly object: Record<string, unknown> | undefined;
  readonly array: unknown[] | undefined;
  name: string;
}

/**
 * The scanner: `i` moves forward only, and every step looks at each character a bounded number of
 * times. Nesting lives in `stack`, never in the call stack.
 */
class Reader {
  private i = 0;

  constructor(private readonly text: string) {}

  read(): unknown {
    const text = this.text;
    const stack: Frame[] = [];
    this.skipWhitespace();
    for (;;) {
      // A value starts at `i`: open a container, or read a scalar whole.
      let value: unknown;
      const c = text.charCodeAt(this.i);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (stack.length === MAX_JSON_DEPTH) {
          throw new MalformedJsonError(`nested deeper than ${MAX_JSON_DEPTH} levels at position ${this.i}`);
        }
        this.i++;
        this.skipWhitespace();
        if (c === OPEN_BRACE) {
          const object: Record<string, unknown> = {};
          if (text.charCodeAt(this.i) !== CLOSE_BRACE) {
            stack.push({ object, array: undefined, name: this.readName(object) });
            continue;
          }
          this.i++;
          value = object;
        } else {
          const array: unknown[] = [];
          if (text.charCodeAt(this.i) !== CLOSE_BRACKET) {
            stack.push({ object: undefined, array, name: "" });
            continue;
          }
          this.i++;
          value = array;
        }
      } else {
        const parent = stack[stack.length - 1];
        value = this.readScalar(parent?.object !== undefined && parent.name === "id");
      }
      // A value is complete: store it in its container, and close every container that ends here.
      for (;;) {
        const frame = stack[stack.length - 1];
        if (frame === undefined) {
          this.skipWhitespace();
          if (this.i < text.length) throw this.unexpected();
          return value;
        }
        if (frame.array !== undefined) frame.array.push(value);
        else if (frame.name === "__proto__") define(frame.object!, frame.name, value);
        else frame.object![frame.name] = value;
        this.skipWhitespace();
        const next = text.charCodeAt(this.i);
        if (next === COMMA) {
          this.i++;
          this.skipWhitespace();
          if (frame.object !== undefined) frame.name = this.readName(frame.object);
          break; // the next value of this container
        }
        if (next !== (frame.array !== undefined ? CLOSE_BRACKET : CLOSE_BRACE)) throw this.unexpected();
        this.i++;
        stack.pop();
        value = frame.array ?? frame.object;
      }
    }
  }

  /** A member name, its colon and the whitespace after; refuses a name the object already has. */
  private readName(object: Record<string, unknown>): string {
    if (this.text.charCodeAt(this.i) !== QUOTE) throw this.unexpected();
    const at = this.i;
    const name = this.knownName() ?? this.readString();
    if (Object.hasOwn(object, name)) {
      throw new MalformedJsonError(`the member ${quoted(name)} appears twice in one object (at position ${at})`);
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) !== COLON) throw this.unexpected();
    this.i++;
    this.skipWhitespace();
    return name;
  }

  /**
   * `i` is at a name's opening quote: the name when it is one of KNOWN_NAMES spelled plainly, `i`
   * past it. A name sliced from the text is a new string that every store and lookup hashes
   * again; a constant is hashed once (a minimal create: 6,200 → 5,300 instructions a parse).
   */
  private knownName(): string | undefined {
    const text = this.text;
    for (const name of KNOWN_NAMES) {
      const end = this.i + name.length + 1;
      if (text.charCodeAt(end) === QUOTE && text.startsWith(name, this.i + 1)) {
        this.i = end + 1;
        return name;
      }
    }
    return undefined;
  }

  private readScalar(isId: boolean): unknown {
    const text = this.text;
    const c = text.charCodeAt(this.i);
    if (c === QUOTE) return this.readString();
    if (c === MINUS || isDigit(c)) return this.readNumber(isId);
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    throw this.unexpected();
  }

  /** `i` is at an opening quote: the string's value, `i` just after its closing quote. */
  private readString(): string {
    const text = this.text;
    const start = this.i;
    let escaped = false;
    let i = start + 1;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        const e = text.charCodeAt(i + 1);
        if (e === 0x75 /* u */) {
          for (let k = i + 2; k < i + 6; k++) if (!isHexDigit(text.charCodeAt(k))) throw this.unexpected(k);
          i += 6;
        } else if (e === QUOTE || e === BACKSLASH || e === SLASH || SHORT_ESCAPES.includes(e)) i += 2;
        else throw this.unexpected(i + 1);
      } else if (c < 0x20 || Number.isNaN(c))
        throw this.unexpected(i); // a control character, or the end
      else i++;
    }
    this.i = i + 1;
    // Escapes were checked above; JSON.parse decodes them (natively, in linear time).
    return escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
  }

  /** `i` is at a `-` or a digit: the number's value (exact for an id), `i` just after it. */
  private readNumber(isId: boolean): unknown {
    const text = this.text;
    const start = this.i;
    let i = text.charCodeAt(start) === MINUS ? start + 1 : start;
    if (text.charCodeAt(i) === ZERO) i++;
    else if (isDigit(text.charCodeAt(i))) i = skipDigits(text, i);
    else throw this.unexpected(i);
    let plain = true;
    if (text.charCodeAt(i) === DOT) {
      plain = false;
      if (!isDigit(text.charCodeAt(i + 1))) throw this.unexpected(i + 1);
      i = skipDigits(text, i + 1);
    }
    const e = text.charCodeAt(i);
    if (e === LOWER_E || e === UPPER_E) {
      plain = false;
      i++;
      const sign = text.charCodeAt(i);
      if (sign === PLUS || sign === MINUS) i++;
      if (!isDigit(text.charCodeAt(i))) throw this.unexpected(i);
      i = skipDigits(text, i);
    }
    this.i = i;
    const literal = text.slice(start, i);
    if (!isId) return Number(literal);
    if (literal.length > MAX_ID_LITERAL_LENGTH) {
      throw new MalformedJsonError(
        `the number of member "id" at position ${start} is ${literal.length} characters long; an id is at most ${MAX_ID_LITERAL_LENGTH}`,
      );
    }
    // The common case, a plain integer within int64's width, needs no arithmetic.
    return plain && literal.length <= 20 ? BigInt(literal) : exactIntegerOf(literal);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let i = this.i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private unexpected(at = this.i): MalformedJsonError {
    if (at >= this.text.length) return new MalformedJsonError(`unexpected end of input at position ${at}`);
    return new MalformedJsonError(`unexpected character ${quoted(this.text[at]!)} at position ${at}`);
  }
}

/** The member names of our own messages (NewPlant, a page, an Error, a webhook event). */
const KNOWN_NAMES = ["id", "name", "tag", "items", "next", "error", "message", "type", "timestamp", "data"];

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/** b f n r t */
const SHORT_ESCAPES = [0x62, 0x66, 0x6e, 0x72, 0x74];

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** `__proto__` as an own member, as `JSON.parse` makes it (assigning it would set the prototype). */
function define(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
}

/** A name or character for a message: quoted, and cut short when long. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/**
 * Parses JSON with every `id` member exact: an integer literal (`5`, `5.0`, `5e0`) becomes a
 * bigint, clamped beyond ±2^64; a literal with a fraction becomes NaN, so that validation says
 * "must be an integer". Every other value is what `JSON.parse` gives. Throws MalformedJsonError for
 * text that is not JSON, nests deeper than MAX_JSON_DEPTH, repeats a member name in one object, or
 * writes an id in more than MAX_ID_LITERAL_LENGTH characters.
 */
export function parseExactJson(text: string): unknown {
  return new Reader(text).read();
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
