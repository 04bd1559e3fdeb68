import { describe, expect, it } from "vitest";
import { deprecation, deprecationHeaders } from "./deprecation.js";

describe("deprecation", () => {
  it("answers RFC 9745 Deprecation (@unix seconds), RFC 8594 Sunset (an HTTP-date) and a deprecation Link", () => {
    const details = deprecation({ since: "2026-12-01", sunset: "2027-06-01", replacement: "GET /plants/changes" });
    expect(deprecationHeaders(details, "getPlant")).toEqual([
      "Deprecation",
      `@${Date.UTC(2026, 11, 1) / 1000}`,
      "Sunset",
      "Tue, 01 Jun 2027 00:00:00 GMT",
      "Link",
      '</docs#/plants/getPlant>; rel="deprecation"',
    ]);
  });

  it("leaves Sunset out when no removal day is set, and links where it is told to", () => {
    const details = deprecation({ since: "2026-12-01", replacement: "x", link: "https://example.com/why" });
    expect(deprecationHeaders(details, "getPlant")).toEqual([
      "Deprecation",
      "@1796083200",
      "Link",
      '<https://example.com/why>; rel="deprecation"',
    ]);
  });

  it("refuses a sunset sooner than 6 months after the deprecation, a day that does not exist, and no replacement", () => {
    expect(() => deprecation({ since: "2026-12-01", sunset: "2027-05-31", replacement: "x" })).toThrow(/6 months/);
    expect(() => deprecation({ since: "2026-02-30", replacement: "x" })).toThrow(/not a YYYY-MM-DD day/);
    expect(() => deprecation({ since: "2026-12-01", replacement: " " })).toThrow(/replacement/);
  });
});
