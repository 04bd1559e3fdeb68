import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { newEventId } from "./webhook-rows.js";

describe("newEventId", () => {
  it("is unique, of one shape, and sorts after every id made in an earlier millisecond", async () => {
    const first = Array.from({ length: 5_000 }, () => newEventId());
    const startedAt = Date.now();
    while (Date.now() === startedAt) await sleep(1); // the next ids are made in a later millisecond
    const second = Array.from({ length: 5_000 }, () => newEventId());
    const all = [...first, ...second];
    expect(new Set(all).size).toBe(all.length);
    for (const id of all) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    const latestFirst = first.reduce((a, b) => (a > b ? a : b));
    for (const id of second) expect(id > latestFirst).toBe(true);
    // The time part is the millisecond the id was made in.
    expect(Number.parseInt(second.at(-1)!.slice(4, 16), 16)).toBeGreaterThanOrEqual(startedAt);
  });
});
