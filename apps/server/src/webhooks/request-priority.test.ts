import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RequestPriority } from "./request-priority.js";

/** Keeps the event loop busy (as a flood of requests would) for `ms`. */
function spin(ms: number, during: () => void = () => {}): void {
  const until = performance.now() + ms;
  while (performance.now() < until) during();
}

describe("RequestPriority", () => {
  it("spaces attempts while requests saturate the loop, and eases back to none window by window", async () => {
    let answered = 0;
    const priority = new RequestPriority(() => answered);
    expect(priority.attemptGapMs()).toBe(0);

    // A saturated loop answering requests: one attempt per 100 ms.
    spin(300, () => answered++);
    expect(priority.attemptGapMs()).toBe(100);
    // Decided once per window: asking again at once changes nothing.
    expect(priority.attemptGapMs()).toBe(100);

    // Requests still arriving but the loop has room: the gap shrinks by a quarter per window (a
    // single window that looks free in the middle of a flood is no reason for full speed), to none.
    const gaps: number[] = [];
    for (let window = 0; window < 4; window++) {
      answered += 100;
      await sleep(300);
      gaps.push(priority.attemptGapMs());
    }
    expect(gaps).toEqual([25, 6.25, 1.5625, 0]);

    // Saturated again: straight back to the full gap.
    spin(300, () => answered++);
    expect(priority.attemptGapMs()).toBe(100);

    // A saturated loop with no more requests than attempts (deliveries catching up): no reason to
    // hold them back.
    spin(300, () => priority.attempted());
    answered += 10;
    expect(priority.attemptGapMs()).toBe(25);
  });
});
