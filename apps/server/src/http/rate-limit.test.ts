import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

describe("RateLimiter (fixed window per token)", () => {
  it("allows the quota, then refuses until the window ends, then starts a new one", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ quota: 2, windowSeconds: 10 }, () => now);
    expect(limiter.policy).toBe('"default";q=2;w=10');
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 10 });
    now += 2_500;
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 8 });
    const refused = limiter.take("a");
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 8 });
    expect(RateLimiter.header(refused)).toBe('"default";r=0;t=8');
    now += 7_499; // 1 ms before the window ends
    expect(limiter.take("a")).toMatchObject({ allowed: false, resetSeconds: 1 });
    now += 1; // the window ends
    expect(limiter.take("a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 10 });
  });

  it("counts each token on its own", () => {
    const limiter = new RateLimiter({ quota: 1, windowSeconds: 60 }, () => 0);
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    expect(limiter.take("b").allowed).toBe(true);
  });

  it("drops ended windows: memory holds only the tokens whose window runs", () => {
    let now = 0;
    const limiter = new RateLimiter({ quota: 5, windowSeconds: 1 }, () => now);
    for (let i = 0; i < 10_000; i++) limiter.take(`once-${i}`);
    expect(limiter.size).toBe(10_000);
    now += 500;
    limiter.take("busy");
    expect(limiter.size).toBe(10_001);
    now += 500; // the 10,000 windows end; "busy" runs on
    expect(limiter.take("busy")).toMatchObject({ allowed: true, remaining: 3 });
    expect(limiter.size).toBe(1);
    now += 500; // "busy" ends: it starts again, counted from zero
    expect(limiter.take("busy")).toEqual({ allowed: true, remaining: 4, resetSeconds: 1 });
    expect(limiter.size).toBe(1);
  });
});
