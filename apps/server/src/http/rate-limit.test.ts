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
});
