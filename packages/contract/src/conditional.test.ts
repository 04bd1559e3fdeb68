import { describe, expect, it } from "vitest";
import { IfMatchHeader, parseEntityTags } from "./conditional.js";

describe("parseEntityTags", () => {
  it("reads *, one tag, weak tags and lists (with empty elements and spaces)", () => {
    expect(parseEntityTags("*")).toBe("*");
    expect(parseEntityTags(' "abc" ')).toEqual([{ weak: false, opaque: "abc" }]);
    expect(parseEntityTags('W/"x", "y" ,, "z"')).toEqual([
      { weak: true, opaque: "x" },
      { weak: false, opaque: "y" },
      { weak: false, opaque: "z" },
    ]);
    expect(parseEntityTags('""')).toEqual([{ weak: false, opaque: "" }]);
  });

  it("refuses what is neither * nor a list of quoted tags", () => {
    for (const value of [
      "",
      " ",
      ",",
      "abc",
      '"abc',
      'abc"',
      '"a" "b"',
      '"a b"',
      '*, "a"',
      'w/"a"',
      '"a"x',
      '"\u0001"',
    ]) {
      expect(parseEntityTags(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it("reads long lists (the header's schema caps the length before it is parsed)", () => {
    expect(parseEntityTags(`${'"a",'.repeat(10_000)}"b"`)).toHaveLength(10_001);
    expect(parseEntityTags(`${'"a",'.repeat(10_000)}"b`)).toBeUndefined();
    expect(parseEntityTags("W/".repeat(10_000))).toBeUndefined();
  });
});

describe("the If-Match header's schema", () => {
  it("yields the parsed tags, and refuses a malformed or overlong value naming what it must be", () => {
    expect(IfMatchHeader.parse('"abc"')).toEqual([{ weak: false, opaque: "abc" }]);
    expect(IfMatchHeader.parse(undefined)).toBeUndefined();
    const refused = IfMatchHeader.safeParse("abc");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/must be \* or a comma-separated list of quoted entity tags/);
    expect(IfMatchHeader.safeParse(`"${"a".repeat(2000)}"`).success).toBe(false);
  });
});
