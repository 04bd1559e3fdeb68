import { describe, expect, it } from "vitest";
import { packPage, unpackPage } from "./plant-pages.js";

describe("packed pages", () => {
  it("unpack what was packed: extreme ids, empty and non-ASCII text, with and without tags", () => {
    const rows = [
      { id: -(2n ** 63n), name: "", tag: null },
      { id: 2n ** 63n - 1n, name: "Monstera 🌿", tag: "" },
      { id: 9007199254740993n, name: "a\u0000b", tag: "x,y" },
      { id: 0n, name: "Fern", tag: null },
    ];
    const plants = unpackPage(structuredClone(packPage(rows)));
    expect(plants).toEqual([
      { id: -(2n ** 63n), name: "" },
      { id: 2n ** 63n - 1n, name: "Monstera 🌿", tag: "" },
      { id: 9007199254740993n, name: "a\u0000b", tag: "x,y" },
      { id: 0n, name: "Fern" },
    ]);
    expect(plants[0]).not.toHaveProperty("tag");
  });

  it("packs an empty page", () => {
    expect(unpackPage(packPage([]))).toEqual([]);
  });
});
