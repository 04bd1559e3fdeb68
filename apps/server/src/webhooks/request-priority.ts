import { availableParallelism } from "node:os";
import { performance, type EventLoopUtilization } from "node:perf_hooks";

/** How long one look lasts: short enough to give way within a moment of a burst. */
const WINDOW_MS = 250;
/** Busier than this (the loop, or the cores the process may use), there is no room for deliveries at full speed. */
const SATURATED = 0.75;
/**
 * Requests count as what saturates the server when they are a real part of its work: at least one
 * answered per this many attempts made in the window (an attempt costs ~6 creates of CPU, so that is
 * ~4 % of the work or more). A server busy with deliveries catching up, a probe or two among them,
 * does not hold them back. Comparing the two one for one, as before, let a flood of creates settle
 * where each create's event was sent as it came, too busy with both to tell them apart.
 */
const ATTEMPTS_PER_REQUEST = 4;
/** While requests saturate the server, one attempt begins at most this often: the backlog still moves. */
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

/** Where the CPU measure comes from (tests give their own). */
export interface CpuSource {
  /** CPU time used by the whole process so far, in microseconds. */
  usedMicros(): number;
  /** How many cores the process may run on (its CPU affinity). */
  cores: number;
}

const processCpu: CpuSource = {
  usedMicros: () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  },
  cores: availableParallelism(),
};

/**
 * Requests come before webhook deliveries. Deliveries are background work on the event loop that
 * answers requests, and an attempt (claim, sign, send, read the answer, record the result: two
 * writes) costs about six times the CPU of the create that caused it, so an instance saturated with
 * creates that also sent at the rate it creates would answer only a fraction of them.
 *
 * Saturated means busy ≥ SATURATED over the last window by either of two measures, with requests a
 * real part of the work (ATTEMPTS_PER_REQUEST): the event loop's busy share, and the share of the
 * process's cores its CPU time took. The second is needed where the SQLite writer thread shares a
 * core with the loop (a pinned process, a one-CPU container): the loop waits, idle, while the
 * writer commits what the deliveries add, so by the loop's measure alone a fresh server's first
 * seconds of creates with an endpoint settled at 1,735 req/s and 560 µs of CPU each (about 150 µs
 * without an endpoint), its core full and its loop below 75 %.
 *
 * While saturated, attempts begin at most once per GAP_WHILE_SATURATED_MS; once requests leave room,
 * the gap shrinks window by window to none, and the worker catches up at full concurrency. The lag
 * stays visible: `plantstore_webhook_oldest_pending_seconds`.
 */
export class RequestPriority {
  private lookedAt = performance.now();
  private loop: EventLoopUtilization = performance.eventLoopUtilization();
  private cpuMicros: number;
  private requests: number;
  private attempts = 0;
  private attemptsThen = 0;
  private gapMs = 0;

  constructor(
    private readonly requestsAnswered: () => number,
    private readonly cpu: CpuSource = processCpu,
  ) {
    this.requests = requestsAnswered();
    this.cpuMicros = cpu.usedMicros();
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
    const loopBusy = performance.eventLoopUtilization(loop, this.loop).utilization;
    const cpuMicros = this.cpu.usedMicros();
    const coresBusy = (cpuMicros - this.cpuMicros) / 1000 / (now - this.lookedAt) / this.cpu.cores;
    const answered = this.requestsAnswered() - this.requests;
    const saturated =
      Math.max(loopBusy, coresBusy) >= SATURATED &&
      answered > 0 &&
      answered * ATTEMPTS_PER_REQUEST >= this.attempts - this.attemptsThen;
    const eased = this.gapMs / GAP_DIVISOR;
    this.gapMs = saturated ? GAP_WHILE_SATURATED_MS : eased < NO_GAP_UNDER_MS ? 0 : eased;
    this.lookedAt = now;
    this.loop = loop;
    this.cpuMicros = cpuMicros;
    this.requests += answered;
    this.attemptsThen = this.attempts;
  }
}
