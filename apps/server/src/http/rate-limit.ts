import type { RateLimit } from "../config.js";

/** A token's standing after one request: whether it may go on, and what the RateLimit headers say. */
export interface RateDecision {
  allowed: boolean;
  /** Requests left in the window that ends now (the last `windowSeconds`). */
  remaining: number;
  /** Whole seconds until one more request is allowed (at least 1): when the oldest one counted leaves. */
  resetSeconds: number;
}

/** The times of a token's last `quota` admitted requests, oldest first from `next` (a ring). */
interface Admissions {
  times: Float64Array;
  next: number;
  /** How many of `times` are set (the ring fills up to `quota`). */
  filled: number;
}

/**
 * At most `quota` requests per token in ANY `windowSeconds` (a sliding log), in this instance's
 * memory (so with several instances the limit applies to each: documented). A fixed window let
 * twice the quota through across its boundary (a full window's worth at its end, another at the
 * next one's start); a sliding-window counter or a token bucket still lets more than the quota into
 * some window. The rule here is exact: a request is admitted when fewer than `quota` were admitted
 * in the last window, which the oldest of the last `quota` admission times tells in O(1).
 *
 * Memory: the times of a token's admissions within the last window (8 bytes each, at most `quota`),
 * only for tokens admitted within it; only valid tokens are counted. The map's order is the order of each token's last admission (a token is re-inserted
 * when admitted), so tokens idle for a whole window are dropped oldest first as requests arrive:
 * each once, in O(1).
 */
export class RateLimiter {
  private readonly admitted = new Map<string, Admissions>();
  private readonly windowMs: number;
  /** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): the same for every answer. */
  readonly policy: string;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = limit.windowSeconds * 1000;
    this.policy = `"default";q=${limit.quota};w=${limit.windowSeconds}`;
  }

  /** Tokens held (admitted within the last window, or idle since the last request). */
  get size(): number {
    return this.admitted.size;
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.dropIdle(now);
    const { quota } = this.limit;
    let log = this.admitted.get(key);
    if (log === undefined) log = { times: new Float64Array(Math.min(quota, 16)), next: 0, filled: 0 };
    // Full ring: its oldest entry is the quota-th last admission; within the window, this one is over.
    const allowed = log.filled < quota || log.times[log.next]! <= now - this.windowMs;
    if (allowed && log.filled === log.times.length && log.filled < quota) this.grow(log);
    if (allowed) {
      log.times[log.next] = now;
      log.next = (log.next + 1) % log.times.length;
      log.filled = Math.min(log.filled + 1, quota);
      this.admitted.delete(key);
      this.admitted.set(key, log);
    }
    const { inWindow, oldest } = this.counted(log, now);
    return {
      allowed,
      remaining: quota - inWindow,
      resetSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  /**
   * Doubles a full ring that holds fewer than `quota` times, oldest first: a token's memory follows
   * what it sends within a window (8 bytes a request), up to `quota` times, never allocated ahead.
   */
  private grow(log: Admissions): void {
    const times = new Float64Array(Math.min(this.limit.quota, log.times.length * 2));
    times.set(log.times.subarray(log.next));
    times.set(log.times.subarray(0, log.next), log.times.length - log.next);
    log.times = times;
    log.next = log.filled;
  }

  /** How many admissions are within the window, and the oldest of them (binary search: the ring is sorted). */
  private counted(log: Admissions, now: number): { inWindow: number; oldest: number } {
    const start = log.filled < log.times.length ? 0 : log.next;
    const at = (i: number) => log.times[(start + i) % log.times.length]!;
    let low = 0;
    let high = log.filled;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (at(middle) <= now - this.windowMs) low = middle + 1;
      else high = middle;
    }
    return { inWindow: log.filled - low, oldest: low < log.filled ? at(low) : now };
  }

  /** Drops the tokens whose last admission left the window, oldest first, up to the first that did not. */
  private dropIdle(now: number): void {
    for (const [key, log] of this.admitted) {
      const newest = log.times[(log.next + log.times.length - 1) % log.times.length]!;
      if (newest > now - this.windowMs) return;
      this.admitted.delete(key);
    }
  }

  /** `RateLimit` for a decision: `"default";r=<remaining>;t=<seconds until one more is allowed>`. */
  static header(decision: RateDecision): string {
    return `"default";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
}
