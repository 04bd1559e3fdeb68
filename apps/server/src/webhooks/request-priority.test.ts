import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RequestPriority } from "./request-priority.js";

/** Keeps the event loop busy (as a flood of requests would) for `ms`. */
function spin(ms: number, during: () => void = () => {}): void {
  const until = performance.now() + ms;
  while (performance.now() < until) during();
}

describe("RequestPriority", () => {
  it("gives way while requests saturate the loop, and not when the loop is idle or busy with deliveries", async () => {
    let answered = 0;
    const priority = new RequestPriority(() => answered);
    expect(priority.shouldGiveWay()).toBe(false);

    // A saturated loop answering requests: give way.
    spin(300, () => answered++);
    expect(priority.shouldGiveWay()).toBe(true);
    // Decided once per window: asking again at once changes nothing.
    expect(priority.shouldGiveWay()).toBe(true);

    // Requests still arriving but the loop has room: full speed again.
    answered += 100;
    await sleep(300);
    expect(priority.shouldGiveWay()).toBe(false);

    // A saturated loop with no more requests than attempts (deliveries catching up): no reason to give way.
    spin(300, () => priority.attempted());
    answered += 10;
    expect(priority.shouldGiveWay()).toBe(false);
  });
});
