import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedJsonError, MAX_ID_LITERAL_LENGTH, MAX_JSON_DEPTH, parseExactJson } from "./exact-json.js";

/**
 * The reader against `JSON.parse`, on generated text: for any JSON text they agree, except that
 * the reader keeps ids exact and refuses what it refuses on purpose (a repeated member name, nesting
 * deeper than MAX_JSON_DEPTH, an overlong id), and both refuse what is not JSON.
 */

/** A generated JSON value: ids are exact (bigint) or doubles; objects keep their members' order. */
type Generated = null | boolean | number | bigint | string | Generated[] | Members;
class Members {
  constructor(readonly entries: ReadonlyArray<readonly [string, Generated]>) {}
}

/** JSON has no NaN or infinities. */
const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });
const INT64_AND_BEYOND = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n });
const idValue: fc.Arbitrary<Generated> = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  INT64_AND_BEYOND,
  finiteDouble,
  fc.integer(),
);
/** Any UTF-16 code unit, lone surrogates included (JSON.parse takes them as they are). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const text = fc.oneof(fc.string(), fc.string({ unit: codeUnit }), fc.string({ unit: "binary" }));
const name = fc.oneof(fc.constantFrom("id", "name", "tag", "data", "__proto__", "0", "1"), text);

const { value } = fc.letrec<{ value: Generated; array: Generated[]; object: Members }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 8, depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    finiteDouble,
    text,
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc
    .uniqueArray(
      fc
        .tuple(name, tie("value"))
        .chain(([key, item]) =>
          key === "id" ? idValue.map((id) => [key, id] as const) : fc.constant([key, item] as const),
        ),
      { maxLength: 6, selector: ([key]) => key },
    )
    .map((entries) => new Members(entries)),
}));

/** A small deterministic source of spelling choices (whitespace, escapes), seeded by fast-check. */
function choices(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

const WHITESPACE = ["", "", "", " ", "\n", "\t", "\r\n  "];
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A JSON spelling of the value: random whitespace, and characters escaped when they must be or at random. */
function render(item: Generated, pick: (n: number) => number): string {
  const ws = () => WHITESPACE[pick(WHITESPACE.length)]!;
  if (item === null) return "null";
  if (typeof item === "boolean") return String(item);
  if (typeof item === "bigint") return item.toString();
  if (typeof item === "number") return Object.is(item, -0) ? "-0" : JSON.stringify(item);
  if (typeof item === "string") return renderString(item, pick);
  if (Array.isArray(item))
    return `[${ws()}${item.map((element) => render(element, pick)).join(`${ws()},${ws()}`)}${ws()}]`;
  const members = item.entries.map(
    ([key, member]) => `${renderString(key, pick)}${ws()}:${ws()}${render(member, pick)}`,
  );
  return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`;
}

function renderString(string: string, pick: (n: number) => number): string {
  let out = '"';
  for (const unit of string.split("")) {
    const code = unit.charCodeAt(0);
    const mustEscape = unit === '"' || unit === "\\" || code < 0x20;
    if (!mustEscape && pick(5) !== 0) out += unit;
    else if (SHORT_ESCAPES[unit] !== undefined && pick(2) === 0) out += SHORT_ESCAPES[unit];
    else {
      const hex = code.toString(16).padStart(4, "0");
      out += `\\u${pick(2) === 0 ? hex : hex.toUpperCase()}`;
    }
  }
  return `${out}"`;
}

const NaN_ = Number.NaN;
const TOO_LARGE = 2n ** 64n;

/** What the reader must give for a generated id: its exact value, clamped, or NaN for a fraction. */
function exactId(id: number | bigint): bigint | number {
  if (typeof id === "number") {
    if (!Number.isInteger(id)) return NaN_;
    // The literal's value, not the double's: JSON.stringify writes the shortest digits that
    // round to it, then zeros (44108866479576330 for the double 44108866479576328).
    if (Math.abs(id) >= 1e20) return id < 0 ? -TOO_LARGE : TOO_LARGE;
    return BigInt(JSON.stringify(id));
  }
  const magnitude = id < 0n ? -id : id;
  return magnitude >= 10n ** 20n ? (id < 0n ? -TOO_LARGE : TOO_LARGE) : id;
}

/** The value each reader must build: `exact` for the exact reader, else what JSON.parse gives. */
function expected(item: Generated, exact: boolean, isId = false): unknown {
  if (isId && (typeof item === "number" || typeof item === "bigint")) return exact ? exactId(item) : Number(item);
  if (typeof item === "bigint") return Number(item);
  if (Array.isArray(item)) return item.map((element) => expected(element, exact));
  if (item instanceof Members) {
    const object: Record<string, unknown> = {};
    for (const [key, member] of item.entries) {
      Object.defineProperty(object, key, {
        value: expected(member, exact, key === "id"),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return object;
  }
  return item;
}

function depthOf(item: Generated): number {
  if (Array.isArray(item)) return 1 + Math.max(0, ...item.map(depthOf));
  if (item instanceof Members) return 1 + Math.max(0, ...item.entries.map(([, member]) => depthOf(member)));
  return 0;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
function attempt(read: () => unknown): Outcome {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * True when the exact reader's value agrees with JSON.parse's: equal everywhere, except the
 * number of an `id` member, which is its exact value (so JSON.parse's double is its rounding).
 */
function agreesExceptIds(exact: unknown, parsed: unknown, isId = false): boolean {
  if (isId && typeof parsed === "number") {
    if (typeof exact === "number") return Number.isNaN(exact); // a fraction: only the exact reader sees it
    if (typeof exact !== "bigint") return false;
    if (exact === TOO_LARGE || exact === -TOO_LARGE)
      return Math.sign(parsed) === (exact < 0n ? -1 : 1) && Math.abs(parsed) >= 1e20;
    return Number(exact) === parsed || (exact === 0n && parsed === 0);
  }
  if (typeof exact !== "object" || exact === null || typeof parsed !== "object" || parsed === null)
    return Object.is(exact, parsed);
  if (Array.isArray(exact) !== Array.isArray(parsed)) return false;
  const keys = Object.keys(exact);
  const parsedKeys = Object.keys(parsed);
  if (keys.length !== parsedKeys.length || keys.some((key, i) => key !== parsedKeys[i])) return false;
  if (Object.getPrototypeOf(exact) !== Object.getPrototypeOf(parsed)) return false;
  const isObject = !Array.isArray(exact);
  return keys.every((key) =>
    agreesExceptIds(
      (exact as Record<string, unknown>)[key],
      (parsed as Record<string, unknown>)[key],
      isObject && key === "id",
    ),
  );
}

const RUNS = { numRuns: Number(process.env.RUNS ?? 500) };
/** Generous: a few hundred runs take well under a second, but the machine may be busy. */
const TIMEOUT_MS = 60_000;

describe("parseExactJson against JSON.parse (property)", () => {
  it(
    "agrees with JSON.parse on any JSON text, ids exact",
    () => {
      fc.assert(
        fc.property(value, fc.integer(), (item, seed) => {
          const source = render(item, choices(seed));
          expect(JSON.parse(source)).toEqual(expected(item, false));
          expect(parseExactJson(source)).toEqual(expected(item, true));
          expect(agreesExceptIds(parseExactJson(source), JSON.parse(source))).toBe(true);
        }),
        RUNS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "refuses what JSON.parse refuses, and agrees on what both accept, in near-JSON text",
    () => {
      const mutation = fc.tuple(
        fc.constantFrom("delete", "insert", "replace", "truncate"),
        fc.nat(),
        fc.oneof(fc.constantFrom(...'{}[]:,"\\ 0123456789-+.eEtfnul\u0000\u001f\u2028'), codeUnit),
      );
      fc.assert(
        fc.property(
          value,
          fc.integer(),
          fc.array(mutation, { minLength: 1, maxLength: 3 }),
          (item, seed, mutations) => {
            let source = render(item, choices(seed));
            for (const [kind, position, character] of mutations) {
              const at = source.length === 0 ? 0 : position % source.length;
              if (kind === "delete") source = source.slice(0, at) + source.slice(at + 1);
              else if (kind === "insert") source = source.slice(0, at) + character + source.slice(at);
              else if (kind === "replace") source = source.slice(0, at) + character + source.slice(at + 1);
              else source = source.slice(0, at);
            }
            const theirs = attempt(() => JSON.parse(source));
            const ours = attempt(() => parseExactJson(source));
            if (!ours.ok) {
              expect(ours.error).toBeInstanceOf(MalformedJsonError);
              // Refused by the reader alone only for what it refuses on purpose.
              if (theirs.ok)
                expect((ours.error as Error).message).toMatch(/appears twice|nested deeper|an id is at most/);
              return;
            }
            expect(theirs.ok).toBe(true);
            expect(agreesExceptIds(ours.value, (theirs as { value: unknown }).value)).toBe(true);
          },
        ),
        { numRuns: 2000 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "refuses a repeated member name, a nesting too deep, where JSON.parse accepts them",
    () => {
      fc.assert(
        fc.property(value, fc.integer(), name, (item, seed, key) => {
          const inner = render(item, choices(seed));
          const repeated = `{${JSON.stringify(key)}:${inner},"x":1,${JSON.stringify(key)}:2}`;
          expect(() => JSON.parse(repeated)).not.toThrow();
          expect(() => parseExactJson(repeated)).toThrow(`the member ${JSON.stringify(key).slice(0, 42)}`);
          const deep = `${"[".repeat(MAX_JSON_DEPTH)}${inner}${"]".repeat(MAX_JSON_DEPTH)}`;
          expect(() => JSON.parse(deep)).not.toThrow();
          if (depthOf(item) === 0) expect(() => parseExactJson(deep)).not.toThrow();
          else expect(() => parseExactJson(deep)).toThrow(`nested deeper than ${MAX_JSON_DEPTH} levels`);
        }),
        RUNS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "reads every spelling of an id's number exactly, and any other number as JSON.parse does",
    () => {
      const digits = (maxLength: number) =>
        fc.string({ unit: fc.constantFrom(..."0000123456789"), maxLength, size: "max" });
      const literal = fc.record({
        negative: fc.boolean(),
        whole: fc.oneof(
          fc.constant("0"),
          fc.tuple(fc.constantFrom(..."123456789"), digits(40)).map(([a, b]) => a + b),
        ),
        fraction: fc.option(fc.tuple(fc.constantFrom(..."0123456789"), digits(30)).map(([a, b]) => a + b)),
        exponent: fc.option(
          fc.record({
            e: fc.constantFrom("e", "E"),
            sign: fc.constantFrom("", "+", "-"),
            zeros: fc.constantFrom("", "0", "00"),
            n: fc.nat(40),
          }),
        ),
      });
      fc.assert(
        fc.property(literal, ({ negative, whole, fraction, exponent }) => {
          const spelled =
            (negative ? "-" : "") +
            whole +
            (fraction === null ? "" : `.${fraction}`) +
            (exponent === null ? "" : `${exponent.e}${exponent.sign}${exponent.zeros}${exponent.n}`);
          expect(parseExactJson(`{"x":${spelled}}`)).toEqual({ x: JSON.parse(spelled) as number });
          const read = attempt(() => parseExactJson(`{"id":${spelled}}`));
          if (spelled.length > MAX_ID_LITERAL_LENGTH) {
            expect(read.ok).toBe(false);
            return;
          }
          // The exact value by another route than the reader's: divisibility of a BigInt.
          const fractionDigits = fraction ?? "";
          const scale =
            (exponent === null ? 0 : exponent.sign === "-" ? -exponent.n : exponent.n) - fractionDigits.length;
          const all = BigInt(whole + fractionDigits);
          let exact: bigint | number;
          if (scale >= 0) exact = all * 10n ** BigInt(scale);
          else exact = all % 10n ** BigInt(-scale) === 0n ? all / 10n ** BigInt(-scale) : NaN_;
          if (typeof exact === "bigint" && exact >= 10n ** 20n) exact = TOO_LARGE;
          if (typeof exact === "bigint" && negative) exact = -exact;
          expect(read).toEqual({ ok: true, value: { id: exact } });
        }),
        { numRuns: 2000 },
      );
    },
    TIMEOUT_MS,
  );
});
