import type { RateLimit } from "../config.js";

/** A token's standing after one request: whether it may go on, and what the RateLimit headers say. */
export interface RateDecision {
  allowed: boolean;
  /** Requests left in the current window. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while it runs). */
  resetSeconds: number;
}

interface Window {
  endsAt: number;
  used: number;
}

/**
 * Requests per token per fixed window, in this instance's memory (so with several instances the
 * limit applies to each: documented). A window starts at a token's first request after the last
 * window ended. Only valid tokens are counted, so the map holds at most one entry per token, and
 * only while its window runs: ended windows are dropped as requests arrive. Every window is as long
 * as every other, so the map's insertion order (a window is re-inserted when it starts) is the order
 * in which they end, and dropping them reads only the ended ones: each is dropped once, in O(1).
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  /** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): the same for every answer. */
  readonly policy: string;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.policy = `"default";q=${limit.quota};w=${limit.windowSeconds}`;
  }

  /** Windows held (running, or ended since the last request). */
  get size(): number {
    return this.windows.size;
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.dropEnded(now);
    let window = this.windows.get(key);
    if (window === undefined) {
      window = { endsAt: now + this.limit.windowSeconds * 1000, used: 0 };
      this.windows.set(key, window);
    }
    window.used++;
    return {
      allowed: window.used <= this.limit.quota,
      remaining: Math.max(0, this.limit.quota - window.used),
      resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
    };
  }

  /** Drops the windows that have ended, oldest first, up to the first that still runs. */
  private dropEnded(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(key);
    }
  }

  /** `RateLimit` for a decision: `"default";r=<remaining>;t=<seconds to reset>`. */
  static header(decision: RateDecision): string {
    return `"default";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
}
