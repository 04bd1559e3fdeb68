import { failureCount, finishedLines, type ImportSummary } from "./import-summary.js";

export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  summary: ImportSummary;
  /** Data lines expected, when known (a file; not standard input). */
  expectedLines?: number;
  /** How often a plain progress line is written when the stream is not a terminal. */
  intervalMs: number;
}

/**
 * Shows how an import is going: a bar redrawn in place on a terminal, otherwise a plain line
 * every `intervalMs` (for logs and CI). Returns a function that stops it.
 */
export function startProgress(options: ProgressOptions): () => void {
  const { stream, summary } = options;
  const started = Date.now();
  const tty = stream.isTTY === true;
  const render = () => {
    const done = finishedLines(summary);
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    const failed = failureCount(summary);
    if (tty) stream.write(`\r${bar(done, options.expectedLines)} ${rate}/s · ${failed} failed\x1b[K`);
    else {
      const of = options.expectedLines === undefined ? "" : `/${options.expectedLines}`;
      stream.write(
        `progress: ${done}${of} lines done (created ${summary.created}, already present ${summary.alreadyPresent}, failed ${failed}), ${rate} lines/s\n`,
      );
    }
  };
  const timer = setInterval(render, tty ? 100 : options.intervalMs);
  return () => {
    clearInterval(timer);
    if (tty) stream.write("\r\x1b[K");
  };
}

const BAR_WIDTH = 24;

function bar(done: number, expected: number | undefined): string {
  if (expected === undefined || expected === 0) return `${done} lines`;
  // The expected count is an estimate (a trailing blank line, a header): never show 100% early.
  const fraction = Math.min(done / expected, 0.99);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${done}/${expected}`;
}
