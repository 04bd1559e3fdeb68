/**
 * How a failed call is retried. Every call is safe to repeat: an identical create is a replay,
 * reads change nothing, and a repeated delete is told apart from a missing plant (see deletePlant).
 */
export interface RetryOptions {
  /** Retries after the first attempt (0 disables retrying). */
  retries: number;
  /** The first backoff ceiling; each retry doubles it. */
  baseDelayMs: number;
  /** The largest backoff ceiling. */
  maxDelayMs: number;
  /** The longest wait a server's `Retry-After` may impose; longer values are cut to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  retries: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

/** Statuses that say "try again": the request was not (or may not have been) served. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(max, base·2^retry)), which keeps
 * many clients retrying at once from hitting the server in lockstep.
 */
export function backoffDelayMs(retryIndex: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: either delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Undefined when the header is absent or unreadable.
 */
export function parseRetryAfterMs(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP date form starts with a day name; anything else ("-1", "1.5") is not one.
  if (!/^[A-Za-z]/.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The wait before retry number `retryIndex` (0-based), honouring a capped `Retry-After`. */
export function retryDelayMs(
  retryIndex: number,
  retryAfterMs: number | undefined,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxRetryAfterMs);
  return backoffDelayMs(retryIndex, options, random);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
