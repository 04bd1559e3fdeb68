import { describe, expect, it } from "vitest";
import { countHeaderValue, INT64_MAX, INT64_MIN, ListPlantsQuery, NewPlant, parseCountHeader, Plant } from "./plant.js";

function issues(body: unknown): string[] {
  const result = NewPlant.safeParse(body);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("NewPlant id (exact int64)", () => {
  it.each([
    ["-2^63", INT64_MIN],
    ["2^63-1", INT64_MAX],
    ["2^53", 2n ** 53n],
    ["2^53+1", 2n ** 53n + 1n],
    ["0", 0n],
    ["-1", -1n],
  ])("accepts %s as a bigint and keeps it exact", (_label, id) => {
    const parsed = NewPlant.parse({ id, name: "Fern" });
    expect(parsed.id).toBe(id);
  });

  it("accepts safe integers given as numbers and yields a bigint", () => {
    expect(NewPlant.parse({ id: 7, name: "Fern" }).id).toBe(7n);
    expect(NewPlant.parse({ id: Number.MAX_SAFE_INTEGER, name: "Fern" }).id).toBe(2n ** 53n - 1n);
  });

  it.each([
    ["2^63", 2n ** 63n, "id: must be between -2^63 and 2^63-1 (int64)"],
    ["-2^63-1", INT64_MIN - 1n, "id: must be between -2^63 and 2^63-1 (int64)"],
    ["1.5", 1.5, "id: must be an integer"],
    ["NaN", Number.NaN, "id: must be an integer"],
    ["Infinity", Number.POSITIVE_INFINITY, "id: must be an integer"],
    ["an unsafe number", 2 ** 53, "id: must be a safe integer when given as a number; pass ids beyond 2^53 as bigint"],
    ["a string", "5", "id: must be an integer, not a string"],
    ["a boolean", true, "id: must be an integer, not a boolean"],
    ["null", null, "id: must be an integer, not null"],
    ["an array", [1], "id: must be an integer, not an array"],
    ["an object", { n: 1 }, "id: must be an integer, not a object"],
  ])("rejects %s", (_label, id, message) => {
    expect(issues({ id, name: "Fern" })).toEqual([message]);
  });

  it("requires the id", () => {
    expect(issues({ name: "Fern" })).toEqual(["id: is required"]);
  });
});

describe("NewPlant name and tag", () => {
  it("accepts the limits, counted in code points", () => {
    expect(issues({ id: 1n, name: "a".repeat(256), tag: "b".repeat(64) })).toEqual([]);
    // 256 astral characters are 512 UTF-16 units but 256 characters.
    expect(issues({ id: 1n, name: "🌿".repeat(256), tag: "🌵".repeat(64) })).toEqual([]);
    expect(issues({ id: 1n, name: "x" })).toEqual([]);
  });

  it.each([
    ["name: must not be empty", { id: 1n, name: "" }],
    ["name: must be at most 256 characters", { id: 1n, name: "a".repeat(257) }],
    ["name: must be at most 256 characters", { id: 1n, name: "🌿".repeat(257) }],
    ["tag: must not be empty", { id: 1n, name: "Fern", tag: "" }],
    ["tag: must be at most 64 characters", { id: 1n, name: "Fern", tag: "b".repeat(65) }],
    ["name: must not contain control characters", { id: 1n, name: "Fe\u0000rn" }],
    ["name: must not contain control characters", { id: 1n, name: "Fe\nrn" }],
    ["name: must not contain control characters", { id: 1n, name: "Fe\u007Frn" }],
    ["name: must not contain control characters", { id: 1n, name: "Fe\u009Frn" }],
    ["tag: must not contain control characters", { id: 1n, name: "Fern", tag: "in\tdoor" }],
    ["name: must be well-formed Unicode (no lone surrogates)", { id: 1n, name: "Fe\uD800rn" }],
    ["name: must be well-formed Unicode (no lone surrogates)", { id: 1n, name: "Fern\uDC00" }],
    ["name: must be a string", { id: 1n, name: 5 }],
    ["name: is required", { id: 1n }],
    ["tag: must be a string", { id: 1n, name: "Fern", tag: null }],
    ["tag: must be a string", { id: 1n, name: "Fern", tag: 3 }],
  ])("rejects %s", (message, body) => {
    expect(issues(body)).toEqual([message]);
  });

  it("accepts characters next to the control ranges", () => {
    expect(issues({ id: 1n, name: " ~\u00A0é中" })).toEqual([]);
  });
});

describe("NewPlant strictness", () => {
  it.each([["color"], ["__proto__"], ["constructor"], ["ID"]])("refuses the unknown field %s", (field) => {
    const body = JSON.parse(`{"id": 1, "name": "Fern", "${field}": 1}`);
    expect(issues(body)).toEqual([expect.stringContaining(field)]);
  });

  it.each([[null], [[]], ["Fern"], [5]])("refuses a body that is not an object: %s", (body) => {
    expect(NewPlant.safeParse(body).success).toBe(false);
  });
});

describe("Plant", () => {
  it("has no id", () => {
    expect(Object.keys(Plant.shape)).toEqual(["name", "tag"]);
  });
});

describe("ListPlantsQuery: name, order, count", () => {
  const refusal = (query: Record<string, string>) => {
    const result = ListPlantsQuery.safeParse(query);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("takes a name prefix as sent (no trimming, %, _ and non-ASCII letters included), an order and a count", () => {
    expect(ListPlantsQuery.parse({ name: " Mon%_é", order: "desc", count: "true" })).toEqual({
      name: " Mon%_é",
      order: "desc",
      count: true,
    });
    expect(ListPlantsQuery.parse({ order: "asc", count: "false" })).toEqual({ order: "asc", count: false });
    expect(ListPlantsQuery.parse({})).toEqual({});
  });

  it.each([
    [{ name: "" }, "name: must not be empty"],
    [{ name: "x".repeat(257) }, "name: must be at most 256 characters"],
    [{ name: "a\u0000" }, "name: must not contain control characters"],
    [{ name: "\uD800" }, "name: must be well-formed Unicode (no lone surrogates)"],
    [{ order: "DESC" }, "order: must be asc or desc"],
    [{ order: "" }, "order: must be asc or desc"],
    [{ count: "1" }, "count: must be true or false"],
    [{ count: "TRUE" }, "count: must be true or false"],
  ])("refuses %j", (query, message) => {
    expect(refusal(query)).toEqual([message]);
  });
});

describe("the count header", () => {
  it("is the exact count up to the bound, and >bound above it; read back as the client reads it", () => {
    expect(countHeaderValue(0)).toBe("0");
    expect(countHeaderValue(1000)).toBe("1000");
    expect(countHeaderValue(1001)).toBe(">1000");
    expect(parseCountHeader("0")).toEqual({ count: 0, more: false });
    expect(parseCountHeader("57")).toEqual({ count: 57, more: false });
    expect(parseCountHeader(">1000")).toEqual({ count: 1000, more: true });
    for (const bad of ["", "01", "-1", ">", "1e3", " 5", "5 "]) expect(parseCountHeader(bad)).toBeUndefined();
  });
});
