import { performance, type EventLoopUtilization } from "node:perf_hooks";

/** How long one look at the event loop lasts: short enough to give way within a moment of a burst. */
const WINDOW_MS = 250;
/**
 * Busier than this, the loop has no room for deliveries at full speed. Below 1 because, on a core
 * shared with the SQLite writer thread, a saturated loop still shows time "idle" while the writer runs.
 */
const SATURATED = 0.75;

/**
 * Requests come before webhook deliveries. Deliveries are background work on the event loop that
 * answers requests, and an attempt (sign, send, read the answer, record the result) costs about as
 * much CPU as the create that caused it: an instance saturated with creates that also sent at the
 * rate it creates would answer creates at about half the rate. So the worker gives way while the
 * loop is saturated by requests (busy ≥ SATURATED over the last window, with more requests answered
 * than attempts made): it keeps one attempt in flight, begun at most every 100 ms, and returns to
 * full concurrency, to catch up, as soon as requests leave room. The lag stays visible:
 * `plantstore_webhook_oldest_pending_seconds`.
 */
export class RequestPriority {
  private lookedAt = performance.now();
  private loop: EventLoopUtilization = performance.eventLoopUtilization();
  private requests: number;
  private attempts = 0;
  private attemptsThen = 0;
  private givingWay = false;

  constructor(private readonly requestsAnswered: () => number) {
    this.requests = requestsAnswered();
  }

  /** Counts an attempt made (the other side of the comparison with requests). */
  attempted(): void {
    this.attempts++;
  }

  /** True while deliveries should give way to requests; looks again once per window. */
  shouldGiveWay(): boolean {
    const now = performance.now();
    if (now - this.lookedAt < WINDOW_MS) return this.givingWay;
    const loop = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(loop, this.loop).utilization;
    const requests = this.requestsAnswered();
    this.givingWay = busy >= SATURATED && requests - this.requests > this.attempts - this.attemptsThen;
    this.lookedAt = now;
    this.loop = loop;
    this.requests = requests;
    this.attemptsThen = this.attempts;
    return this.givingWay;
  }
}
