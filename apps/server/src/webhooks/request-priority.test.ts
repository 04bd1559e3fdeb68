import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RequestPriority, type CpuSource } from "./request-priority.js";

/** Keeps the event loop busy (as a flood of requests would) for `ms`. */
function spin(ms: number, during: () => void = () => {}): void {
  const until = performance.now() + ms;
  while (performance.now() < until) during();
}

/** A process that used no CPU at all: only the event loop's own measure counts. */
const noCpu: CpuSource = { usedMicros: () => 0, cores: 1 };
/** A process whose one core was busy the whole time (the SQLite writer thread on the loop's core, say). */
const fullCore: CpuSource = { usedMicros: () => performance.now() * 1000, cores: 1 };

describe("RequestPriority", () => {
  it("spaces attempts while requests saturate the loop, and eases back to none window by window", async () => {
    let answered = 0;
    const priority = new RequestPriority(() => answered, noCpu);
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

    // A saturated loop answering as many requests as it makes attempts (a flood of creates whose
    // events go out as they come): requests first.
    spin(300, () => {
      answered++;
      priority.attempted();
    });
    expect(priority.attemptGapMs()).toBe(100);

    // A saturated loop with fewer than one request per four attempts (deliveries catching up, a
    // probe or two among them): no reason to hold them back.
    spin(300, () => priority.attempted());
    answered += 10;
    expect(priority.attemptGapMs()).toBe(25);
  });

  it("counts the process's cores as saturated too, while the loop itself waits", async () => {
    let answered = 0;
    const priority = new RequestPriority(() => answered, fullCore);

    // The loop idle, its core full, requests answered: requests first.
    answered += 100;
    await sleep(300);
    expect(priority.attemptGapMs()).toBe(100);

    // The core full with nothing but deliveries: no reason to hold them back.
    for (let attempt = 0; attempt < 50; attempt++) priority.attempted();
    await sleep(300);
    expect(priority.attemptGapMs()).toBe(25);
  });
});
