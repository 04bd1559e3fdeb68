export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean };

export interface TickerOptions {
  stream: ProgressStream;
  /** How often a plain line is written when the stream is not a terminal. */
  intervalMs: number;
  /** The bar, redrawn in place every 100 ms on a terminal. */
  bar(): string;
  /** A plain line (without its newline), for logs and CI. */
  line(): string;
}

/**
 * The progress display every long command shares: a bar redrawn in place on a terminal,
 * otherwise a plain line every `intervalMs`. Returns a function that stops it (and clears the bar).
 */
export function startTicker(options: TickerOptions): () => void {
  const { stream } = options;
  const tty = stream.isTTY === true;
  const render = () => {
    if (tty) stream.write(`\r${options.bar()}\x1b[K`);
    else stream.write(`${options.line()}\n`);
  };
  const timer = setInterval(render, tty ? 100 : options.intervalMs);
  return () => {
    clearInterval(timer);
    if (tty) stream.write("\r\x1b[K");
  };
}

/** Items per second since `startedMs` (0 before any time has passed). */
export function ratePerSecond(count: number, startedMs: number, nowMs = Date.now()): number {
  const seconds = (nowMs - startedMs) / 1000;
  return seconds > 0 ? Math.round(count / seconds) : 0;
}
