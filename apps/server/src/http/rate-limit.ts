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
 * window ended. Only valid tokens are counted, so the map holds at most one entry per token.
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

  take(key: string): RateDecision {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || now >= window.endsAt) {
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

  /** `RateLimit` for a decision: `"default";r=<remaining>;t=<seconds to reset>`. */
  static header(decision: RateDecision): string {
    return `"default";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
}
