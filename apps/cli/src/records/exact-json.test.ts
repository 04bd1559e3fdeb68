import { describe, expect, it } from "vitest";
import { parseExactJson } from "./exact-json.js";

describe("parseExactJson", () => {
  it("keeps every integer exact as a bigint", () => {
    expect(parseExactJson('{"id": 9007199254740993, "name": "Fern"}')).toEqual({ id: 9007199254740993n, name: "Fern" });
    expect(parseExactJson('{"id":-9223372036854775808}')).toEqual({ id: -(2n ** 63n) });
    expect(parseExactJson("[0, -1, 1.5, 2e3]")).toEqual([0n, -1n, 1.5, 2000]);
  });

  it("reads strings, escapes and literals as JSON.parse does", () => {
    const text = '{"name":"F\\u00e9rn \\"x\\"\\n","tag":null,"a":[true,false,{}],"b":[]}';
    expect(parseExactJson(text)).toEqual(JSON.parse(text));
  });

  it("keeps __proto__ an ordinary key", () => {
    const value = parseExactJson('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['{"id": 1, "id": 2}', 'duplicate key "id"'],
    ['{"id": 01}', 'expected "}"'],
    ['{"id": 1', 'expected "}"'],
    ['{"name": "Fern}', "unterminated string"],
    ['{"name": "a\\x"}', "invalid string"],
    ['{"id": 1} x', "unexpected text after the JSON value"],
    ["{id: 1}", "expected a quoted key"],
    ["", "unexpected end of JSON"],
    ["+1", 'unexpected character "+"'],
  ])("refuses %j", (text, message) => {
    expect(() => parseExactJson(text)).toThrow(message);
  });
});
