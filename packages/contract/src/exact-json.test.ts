import { describe, expect, it } from "vitest";
import { exactIntegerOf, parseJsonWithExactId, topLevelValueSource } from "./exact-json.js";

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
  });
});

describe("topLevelValueSource", () => {
  it("finds the top-level member, not a nested or quoted one", () => {
    const text = '{"name":"\\"id\\":1,","x":{"id":2,"y":[{"id":3}]},"id" : 9007199254740993 }';
    expect(topLevelValueSource(text, "id")).toBe("9007199254740993");
  });

  it("decodes escaped keys and takes the last duplicate, as JSON.parse does", () => {
    expect(topLevelValueSource('{"\\u0069d":1,"id":2}', "id")).toBe("2");
    expect(topLevelValueSource('{"id":2,"\\u0069d":3}', "id")).toBe("3");
  });

  it("handles whitespace everywhere", () => {
    expect(topLevelValueSource(' \n{ "a" : [ 1 , "]" ] ,\t"id"\r\n:\n-12e0\n}\n', "id")).toBe("-12e0");
  });
});

describe("parseJsonWithExactId", () => {
  it("keeps ids above 2^53 exact", () => {
    expect(parseJsonWithExactId('{"id":9007199254740993,"name":"a"}')).toEqual({ id: 9007199254740993n, name: "a" });
  });

  it("leaves non-numeric ids for validation to refuse", () => {
    expect(parseJsonWithExactId('{"id":"5"}')).toEqual({ id: "5" });
  });

  it("turns a fractional id into NaN even when the double would be an integer", () => {
    expect((parseJsonWithExactId('{"id":1.0000000000000001}') as { id: unknown }).id).toBeNaN();
  });

  it("throws MalformedJsonError on bad JSON", () => {
    expect(() => parseJsonWithExactId('{"id":')).toThrow(/JSON/);
  });
});
