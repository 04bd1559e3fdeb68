import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffDelayMs, DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, retryDelayMs, sleep } from "./retry-policy.js";

const options = { retries: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };

describe("backoffDelayMs (full jitter)", () => {
  it("stays below a ceiling that doubles each retry up to the maximum", () => {
    const almostOne = () => 0.999_999;
    expect([0, 1, 2, 3, 4, 10].map((retry) => backoffDelayMs(retry, options, almostOne))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelayMs(3, options, () => 0)).toBe(0);
  });

  it("spreads waits over the whole range", () => {
    const waits = Array.from({ length: 200 }, () => backoffDelayMs(3, options));
    expect(Math.min(...waits)).toBeLessThan(200);
    expect(Math.max(...waits)).toBeGreaterThan(600);
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfterMs("3", now)).toBe(3_000);
    expect(parseRetryAfterMs(" 0 ", now)).toBe(0);
  });

  it("reads an HTTP date", () => {
    expect(parseRetryAfterMs("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7_000);
    expect(parseRetryAfterMs("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs("-1", now)).toBeUndefined();
    expect(parseRetryAfterMs("1.5", now)).toBeUndefined();
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  it("honours Retry-After up to the cap, else backs off", () => {
    expect(retryDelayMs(0, 2_000, options)).toBe(2_000);
    expect(retryDelayMs(0, 60_000, options)).toBe(5_000);
    expect(retryDelayMs(2, undefined, options, () => 0.5)).toBe(200);
  });

  it("has sensible defaults", () => {
    expect(DEFAULT_RETRY_OPTIONS.retries).toBeGreaterThan(0);
    expect(DEFAULT_RETRY_OPTIONS.maxRetryAfterMs).toBeGreaterThan(DEFAULT_RETRY_OPTIONS.maxDelayMs);
  });
});

describe("sleep", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves after its time, not before", async () => {
    vi.useFakeTimers();
    let resolved = false;
    const pending = sleep(10_000).then(() => (resolved = true));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(resolved).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(resolved).toBe(true);
  });

  it("rejects with the abort reason as soon as the signal fires, and clears its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error("stop"));
    // No time passes: the rejection comes from the abort, not from the timer.
    await expect(pending).rejects.toThrow("stop");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects at once for a signal that already fired", async () => {
    await expect(sleep(10_000, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });
});
