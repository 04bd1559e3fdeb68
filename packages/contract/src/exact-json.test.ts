import { describe, expect, it } from "vitest";
import {
  exactIntegerOf,
  MalformedJsonError,
  MAX_ID_LITERAL_LENGTH,
  MAX_JSON_DEPTH,
  parseExactJson,
  stringifyExactJson,
} from "./exact-json.js";

describe("exactIntegerOf", () => {
  it.each([
    ["0", 0n],
    ["-0", 0n],
    ["7", 7n],
    ["-7", -7n],
    ["9007199254740992", 9007199254740992n],
    ["9007199254740993", 9007199254740993n],
    ["9223372036854775807", 9223372036854775807n],
    ["-9223372036854775808", -9223372036854775808n],
    ["9223372036854775808", 9223372036854775808n],
    ["5.0", 5n],
    ["5.000", 5n],
    ["50e-1", 5n],
    ["1E3", 1000n],
    ["1e+3", 1000n],
    ["0.5e1", 5n],
    ["9007199254740993.0", 9007199254740993n],
    ["0e400", 0n],
  ])("%s is the integer %s", (literal, expected) => {
    expect(exactIntegerOf(literal)).toBe(expected);
  });

  it.each([["1.5"], ["1.0000000000000001"], ["5e-1"], ["9007199254740993.5"], ["1e-400"]])(
    "%s is not an integer",
    (literal) => {
      expect(exactIntegerOf(literal)).toBeNaN();
    },
  );

  it("clamps magnitudes beyond int64 without computing them", () => {
    expect(exactIntegerOf("1e400")).toBe(2n ** 64n);
    expect(exactIntegerOf("-1e999999999999")).toBe(-(2n ** 64n));
    expect(exactIntegerOf("123456789012345678901234567890")).toBe(2n ** 64n);
    expect(exactIntegerOf(`1${"0".repeat(100_000)}1`)).toBe(2n ** 64n);
    expect(exactIntegerOf(`1.${"0".repeat(100_000)}1`)).toBeNaN();
  });

  it.each([[""], ["-"], ["1."], [".5"], ["1e"], ["1e+"], ["1x"], ["1.5.5"]])("%s is not a number", (literal) => {
    expect(exactIntegerOf(literal)).toBeNaN();
  });
});

describe("parseExactJson", () => {
  it("keeps ids above 2^53 exact", () => {
    expect(parseExactJson('{"id":9007199254740993,"name":"a"}')).toEqual({ id: 9007199254740993n, name: "a" });
  });

  it("makes every id member exact at any depth: objects, arrays of objects, nested data", () => {
    const text =
      '[{"id":9007199254740993,"tag":"x"},{"id":-9223372036854775808},' +
      '{"type":"plant.created","data":{"id":9223372036854775807,"name":"\\"id\\":1,"}}]';
    expect(parseExactJson(text)).toEqual([
      { id: 9007199254740993n, tag: "x" },
      { id: -(2n ** 63n) },
      { type: "plant.created", data: { id: 2n ** 63n - 1n, name: '"id":1,' } },
    ]);
  });

  it("touches only members named id, never numbers elsewhere or ids inside strings", () => {
    expect(parseExactJson('{"error":40901,"message":"\\"id\\": 9007199254740993","n":[1,2.5]}')).toEqual({
      error: 40901,
      message: '"id": 9007199254740993',
      n: [1, 2.5],
    });
  });

  it("decodes escaped names", () => {
    expect(parseExactJson('{"\\u0069d":9007199254740993}')).toEqual({ id: 9007199254740993n });
    expect(parseExactJson('{"a":{"x":1},"b":{"x":2}}')).toEqual({ a: { x: 1 }, b: { x: 2 } });
  });

  it.each([
    ['{"id":1,"name":"a","id":2}', "id"],
    ['{"\\u0069d":1,"id":9007199254740993}', "id"],
    ['{"id":1,"id":"x"}', "id"],
    ['{"a":{"id":1},"a":{"id":9007199254740993}}', "a"],
    ['[1,{"data":{"name":"a","tag":null,"name":"b"}}]', "name"],
    ['{"__proto__":1,"__proto__":2}', "__proto__"],
  ])("refuses a member name an object already has, at any level: %s", (text, name) => {
    expect(() => parseExactJson(text)).toThrow(MalformedJsonError);
    expect(() => parseExactJson(text)).toThrow(`the member "${name}" appears twice in one object`);
  });

  it("handles whitespace everywhere", () => {
    expect(parseExactJson(' \n{ "a" : [ 1 , "]" ] ,\t"id"\r\n:\n-12e0\n}\n')).toEqual({ a: [1, "]"], id: -12n });
    expect(parseExactJson(' [ { "id" : 1 } , { } , [ ] ] ')).toEqual([{ id: 1n }, {}, []]);
  });

  it("keeps __proto__ an own member, as JSON.parse does", () => {
    const value = parseExactJson('{"__proto__":{"id":1},"id":2}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__", "id"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.id).toBe(2n);
  });

  it("leaves non-numeric ids for validation to refuse", () => {
    expect(parseExactJson('{"id":"5"}')).toEqual({ id: "5" });
    expect(parseExactJson('{"id":null,"x":{"id":true}}')).toEqual({ id: null, x: { id: true } });
  });

  it("turns a fractional id into NaN even when the double would be an integer", () => {
    expect((parseExactJson('{"id":1.0000000000000001}') as { id: unknown }).id).toBeNaN();
  });

  it("throws MalformedJsonError on bad JSON, saying where", () => {
    expect(() => parseExactJson('{"id":')).toThrow(MalformedJsonError);
    expect(() => parseExactJson('{"id":')).toThrow("unexpected end of input at position 6");
    expect(() => parseExactJson('{"id":1,}')).toThrow('unexpected character "}" at position 8');
    for (const text of [
      "",
      " ",
      "01",
      "1.",
      ".5",
      "+1",
      "1e",
      "-",
      "NaN",
      "[1,]",
      '"\\x"',
      '"\u0001"',
      "tru",
      "{'a':1}",
    ]) {
      expect(() => parseExactJson(text), text).toThrow(MalformedJsonError);
    }
  });

  it(`accepts nesting ${MAX_JSON_DEPTH} deep and refuses deeper, at any depth, without recursion`, () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(() => parseExactJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseExactJson(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`)).not.toThrow();
    const refusal = `nested deeper than ${MAX_JSON_DEPTH} levels at position ${MAX_JSON_DEPTH}`;
    expect(() => parseExactJson(nested(MAX_JSON_DEPTH + 1))).toThrow(refusal);
    // Far deeper than any call stack: refused in the reader's words, not a RangeError.
    expect(() => parseExactJson(nested(1_000_000))).toThrow(refusal);
    expect(() => parseExactJson(`${'{"a":'.repeat(1_000_000)}1${"}".repeat(1_000_000)}`)).toThrow(MalformedJsonError);
  });

  it(`refuses an id written in more than ${MAX_ID_LITERAL_LENGTH} characters, before any arithmetic`, () => {
    const longest = `5.${"0".repeat(MAX_ID_LITERAL_LENGTH - 2)}`;
    expect(parseExactJson(`{"id":${longest}}`)).toEqual({ id: 5n });
    expect(() => parseExactJson(`{"id":${longest}0}`)).toThrow(
      `the number of member "id" at position 6 is ${MAX_ID_LITERAL_LENGTH + 1} characters long; an id is at most ${MAX_ID_LITERAL_LENGTH}`,
    );
    // A long zero run ending in another digit (quadratic in a backtracking regular expression).
    expect(() => parseExactJson(`{"id":1${"0".repeat(1_000_000)}1}`)).toThrow(MalformedJsonError);
    // Numbers elsewhere are JSON.parse's, whatever their length.
    const long = `1${"0".repeat(400)}1`;
    expect(parseExactJson(`{"n":${long}}`)).toEqual({ n: JSON.parse(long) as number });
  });
});

describe("stringifyExactJson", () => {
  it("writes bigints as exact integer literals", () => {
    expect(stringifyExactJson({ id: 2n ** 63n - 1n, name: "Fern" })).toBe('{"id":9223372036854775807,"name":"Fern"}');
    expect(stringifyExactJson({ id: -(2n ** 63n) })).toBe('{"id":-9223372036854775808}');
    expect(stringifyExactJson([{ id: 2n ** 53n + 1n }])).toBe('[{"id":9007199254740993}]');
  });

  it("leaves numbers, strings and nesting as JSON.stringify writes them", () => {
    const value = { id: 7, name: 'Fe"rn\n', tag: "bigint-1:2", nested: [1n, { x: 2n }] };
    expect(stringifyExactJson(value)).toBe('{"id":7,"name":"Fe\\"rn\\n","tag":"bigint-1:2","nested":[1,{"x":2}]}');
  });

  it("does not mistake a string that looks like a number for a bigint", () => {
    expect(stringifyExactJson({ id: "12" })).toBe('{"id":"12"}');
  });

  it("writes plain data byte for byte as JSON.stringify does", () => {
    const sparse: unknown[] = [1];
    sparse[3] = 2;
    const bare: Record<string, unknown> = Object.create(null);
    bare.b = 1;
    bare.a = [true, false, null];
    const values: unknown[] = [
      0,
      -0,
      1.5,
      -1e21,
      1e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.MAX_VALUE,
      true,
      null,
      "",
      'q"\\\n\t\u0001\u2028\ud800 é 🌿',
      [],
      {},
      [undefined, () => 1, Symbol("s")],
      { a: undefined, b: () => 1, c: Symbol("s"), d: 1 },
      { 2: "two", 1: "one", b: "b", a: "a" },
      { "": 1, 'k"ey': 2, __proto__: 3 },
      sparse,
      bare,
      { deep: [[[{ x: [[1]] }]]] },
      {
        items: [
          { id: 1, name: "Fern", tag: "indoor" },
          { id: 2, name: "Ivy" },
        ],
        next: null,
      },
    ];
    for (const value of values) expect(stringifyExactJson(value)).toBe(JSON.stringify(value));
    expect(() => stringifyExactJson(undefined)).toThrow(TypeError);
  });

  it("leaves what is not plain data to JSON.stringify, bigints still exact", () => {
    class Box {
      constructor(readonly id: bigint) {}
    }
    const withToJson = { id: 1n, toJSON: () => ({ id: 2n, kept: "only this" }) };
    expect(stringifyExactJson({ id: 5n, at: new Date(0) })).toBe('{"id":5,"at":"1970-01-01T00:00:00.000Z"}');
    expect(stringifyExactJson([new Box(2n ** 63n - 1n)])).toBe('[{"id":9223372036854775807}]');
    expect(stringifyExactJson({ plant: withToJson })).toBe('{"plant":{"id":2,"kept":"only this"}}');
    expect(stringifyExactJson([Object("s"), Object(1), new Map([[1, 2]])])).toBe('["s",1,{}]');
    let deep: unknown = { id: 3n };
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(stringifyExactJson(deep)).toBe(`${"[".repeat(100)}{"id":3}${"]".repeat(100)}`);
    const cycle: Record<string, unknown> = { id: 1n };
    cycle.self = cycle;
    expect(() => stringifyExactJson(cycle)).toThrow(TypeError);
  });

  it("round-trips through parseExactJson", () => {
    const plants = [
      { id: -(2n ** 63n), name: "a" },
      { id: 2n ** 63n - 1n, name: "b", tag: 'c,"d"' },
    ];
    expect(parseExactJson(stringifyExactJson(plants))).toEqual(plants);
  });
});
