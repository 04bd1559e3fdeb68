import { describe, expect, it } from "vitest";
import { Slots } from "./slots.js";

describe("Slots", () => {
  it("reuses an emptied slot, and an emptied slot holds nothing", () => {
    const slots = new Slots<string>();
    const a = slots.put("a");
    const b = slots.put("b");
    expect([a, b, slots.size]).toEqual([0, 1, 2]);
    expect(slots.take(a)).toBe("a");
    expect(slots.at(a)).toBeUndefined();
    expect(slots.take(a)).toBeUndefined();
    expect(slots.size).toBe(1);
    expect(slots.put("c")).toBe(a);
    expect(slots.values()).toEqual(["c", "b"]);
  });

  it("empties every slot at once", () => {
    const slots = new Slots<number>();
    for (let i = 0; i < 5; i++) slots.put(i);
    slots.take(2);
    expect(slots.takeAll()).toEqual([0, 1, 3, 4]);
    expect([slots.size, slots.values()]).toEqual([0, []]);
    expect(slots.put(9)).toBe(0);
  });
});
