/**
 * When a failed delivery is tried again. The default is the Standard Webhooks schedule after an
 * immediate first attempt; jitter only lengthens a delay, by up to 20 %, so that deliveries failed
 * together do not all return together. `Retry-After` on 429 and 503 is honoured (up to a day).
 */
export const DEFAULT_RETRY_DELAYS_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];

const JITTER = 0.2;
const LONGEST_RETRY_AFTER_MS = 86_400_000;

/**
 * The wait before the next attempt after failed attempt number `attempt` (1-based), or undefined
 * when the schedule is exhausted (the delivery has failed).
 */
export function retryDelayMs(
  attempt: number,
  delaysSeconds: readonly number[],
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const delay = delaysSeconds[attempt - 1];
  if (delay === undefined) return undefined;
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, LONGEST_RETRY_AFTER_MS);
  return delay * 1000 * (1 + random() * JITTER);
}

/** `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
