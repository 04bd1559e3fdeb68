import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_DELAYS_SECONDS, retryAfterMs, retryDelayMs } from "./schedule.js";

describe("the retry schedule", () => {
  it("waits each delay in turn, lengthened by at most 20 % jitter, then gives up", () => {
    const delays = [0.2, 0.5, 1];
    expect(retryDelayMs(1, delays, undefined, () => 0)).toBe(200);
    expect(retryDelayMs(2, delays, undefined, () => 0.999_999)).toBeCloseTo(600, 3);
    expect(retryDelayMs(3, delays, undefined, () => 0.5)).toBe(1_100);
    expect(retryDelayMs(4, delays, undefined)).toBeUndefined();
  });

  it("is the Standard Webhooks schedule by default", () => {
    expect(DEFAULT_RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
  });

  it("honours Retry-After within the schedule, up to a day", () => {
    expect(retryDelayMs(1, [5], 30_000)).toBe(30_000);
    expect(retryDelayMs(1, [5], 10 * 86_400_000)).toBe(86_400_000);
    expect(retryDelayMs(2, [5], 30_000)).toBeUndefined();
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("7")).toBe(7_000);
    expect(retryAfterMs("Sun, 22 Nov 2026 10:00:10 GMT", Date.parse("2026-11-22T10:00:00Z"))).toBe(10_000);
    expect(retryAfterMs("-1")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
