import { performance, type EventLoopUtilization } from "node:perf_hooks";

/** How long one look at the event loop lasts: short enough to give way within a moment of a burst. */
const WINDOW_MS = 250;
/**
 * Busier than this, the loop has no room for deliveries at full speed. Below 1 because, on a core
 * shared with the SQLite writer thread, a saturated loop still shows time "idle" while the writer runs.
 */
const SATURATED = 0.75;
/** While requests saturate the loop, one attempt begins at most this often: the backlog still moves. */
const GAP_WHILE_SATURATED_MS = 100;
/**
 * Each window with room divides the gap by this, and below NO_GAP_UNDER_MS there is none: full speed
 * about a second after requests leave room. Under a flood, the loop's busy share swings around
 * SATURATED from window to window (0.73–0.89 measured under saturating creates); a window that
 * reads as free then lets a few more attempts begin, where going straight to full speed let ~50
 * begin in 250 ms and cost the flood's creates ~8 % of their throughput.
 */
const GAP_DIVISOR = 4;
const NO_GAP_UNDER_MS = 1;

/**
 * Requests come before webhook deliveries. Deliveries are background work on the event loop that
 * answers requests, and an attempt (claim, sign, send, read the answer, record the result: two
 * commits) costs several times the CPU of the create that caused it, so an instance saturated with
 * creates that also sent at the rate it creates would answer only a fraction of them. So while the
 * loop is saturated by requests (busy ≥ SATURATED over the last window, with more requests answered
 * than attempts made), attempts begin at most once per GAP_WHILE_SATURATED_MS; once requests leave
 * room, the gap shrinks window by window to none, and the worker catches up at full concurrency.
 * The lag stays visible: `plantstore_webhook_oldest_pending_seconds`.
 */
export class RequestPriority {
  private lookedAt = performance.now();
  private loop: EventLoopUtilization = performance.eventLoopUtilization();
  private requests: number;
  private attempts = 0;
  private attemptsThen = 0;
  private gapMs = 0;

  constructor(private readonly requestsAnswered: () => number) {
    this.requests = requestsAnswered();
  }

  /** Counts an attempt made (the other side of the comparison with requests). */
  attempted(): void {
    this.attempts++;
  }

  /** The least time between the starts of two attempts now (0: no limit); looks again once per window. */
  attemptGapMs(): number {
    const now = performance.now();
    if (now - this.lookedAt >= WINDOW_MS) this.look(now);
    return this.gapMs;
  }

  private look(now: number): void {
    const loop = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(loop, this.loop).utilization;
    const requests = this.requestsAnswered();
    const saturated = busy >= SATURATED && requests - this.requests > this.attempts - this.attemptsThen;
    const eased = this.gapMs / GAP_DIVISOR;
    this.gapMs = saturated ? GAP_WHILE_SATURATED_MS : eased < NO_GAP_UNDER_MS ? 0 : eased;
    this.lookedAt = now;
    this.loop = loop;
    this.requests = requests;
    this.attemptsThen = this.attempts;
  }
}
