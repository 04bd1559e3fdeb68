import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

/** The most requests `take` admitted within any `windowMs` (a sliding window over the admission times). */
function mostInAnyWindow(admittedAt: number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < admittedAt.length; last++) {
    while (admittedAt[last]! - admittedAt[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe("RateLimiter (at most the quota in any window)", () => {
  it("allows the quota, then refuses until the oldest counted request leaves the window", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ quota: 2, windowSeconds: 10 }, () => now);
    expect(limiter.policy).toBe('"default";q=2;w=10');
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 10 });
    now += 2_500;
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 8 });
    const refused = limiter.take("a");
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 8 });
    expect(RateLimiter.header(refused)).toBe('"default";r=0;t=8');
    now += 7_499; // 1 ms before the first request leaves the window
    expect(limiter.take("a")).toMatchObject({ allowed: false, resetSeconds: 1 });
    now += 1; // it leaves: one more, and the second is still counted
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 3 });
  });

  it("lets no more than the quota into any window, whatever the burst's phase (no boundary burst)", () => {
    // 20/1s: one request, a pause of every length, then a client sending every millisecond. A fixed
    // window begun by the first request let 19 through at the pause's end and 20 more when it ended.
    for (let pause = 0; pause < 1_000; pause += 37) {
      let now = 5_000_000;
      const limiter = new RateLimiter({ quota: 20, windowSeconds: 1 }, () => now);
      const admittedAt: number[] = [];
      if (limiter.take("burst").allowed) admittedAt.push(now);
      now += pause;
      for (let step = 0; step < 2_500; step++, now++) if (limiter.take("burst").allowed) admittedAt.push(now);
      expect(mostInAnyWindow(admittedAt, 1_000), `after a pause of ${pause} ms`).toBe(20);
      // And no fewer: the quota is there again as soon as the oldest request leaves the window.
      expect(admittedAt.length, `after a pause of ${pause} ms`).toBeGreaterThanOrEqual(40);
    }
  });

  it("holds what a token sent within the window, not its quota: a quota of 999,999,999 costs nothing up front", () => {
    let now = 0;
    const limiter = new RateLimiter({ quota: 999_999_999, windowSeconds: 3_600 }, () => now);
    for (let i = 0; i < 1_000; i++, now++) expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a")).toMatchObject({ allowed: true, remaining: 999_999_999 - 1_001 });
  });

  it("counts each token on its own", () => {
    const limiter = new RateLimiter({ quota: 1, windowSeconds: 60 }, () => 0);
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    expect(limiter.take("b").allowed).toBe(true);
  });

  it("drops idle tokens: memory holds only the tokens admitted within the last window", () => {
    let now = 0;
    const limiter = new RateLimiter({ quota: 5, windowSeconds: 1 }, () => now);
    for (let i = 0; i < 10_000; i++) limiter.take(`once-${i}`);
    expect(limiter.size).toBe(10_000);
    now += 500;
    limiter.take("busy");
    expect(limiter.size).toBe(10_001);
    now += 500; // the 10,000 leave the window; "busy" stays
    expect(limiter.take("busy")).toMatchObject({ allowed: true, remaining: 3 });
    expect(limiter.size).toBe(1);
    now += 1_000; // "busy" leaves too: counted from zero again
    expect(limiter.take("busy")).toEqual({ allowed: true, remaining: 4, resetSeconds: 1 });
    expect(limiter.size).toBe(1);
  });
});
