import { describe, expect, it } from "vitest";
import { stringifyExactJson } from "./exact-json.js";

describe("stringifyExactJson", () => {
  it("writes bigints as exact integer literals", () => {
    expect(stringifyExactJson({ id: 2n ** 63n - 1n, name: "Fern" })).toBe('{"id":9223372036854775807,"name":"Fern"}');
    expect(stringifyExactJson({ id: -(2n ** 63n) })).toBe('{"id":-9223372036854775808}');
    expect(stringifyExactJson({ id: 2n ** 53n + 1n })).toBe('{"id":9007199254740993}');
  });

  it("leaves numbers, strings and nesting as JSON.stringify writes them", () => {
    const value = { id: 7, name: 'Fe"rn\n', tag: "bigint-1:2", nested: [1n, { x: 2n }] };
    expect(stringifyExactJson(value)).toBe('{"id":7,"name":"Fe\\"rn\\n","tag":"bigint-1:2","nested":[1,{"x":2}]}');
  });

  it("does not mistake a string that looks like a number for a bigint", () => {
    expect(stringifyExactJson({ id: "12" })).toBe('{"id":"12"}');
  });
});
