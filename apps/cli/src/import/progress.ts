import { ratePerSecond, startTicker, type ProgressStream } from "../ticker.js";
import { failureCount, finishedLines, type ImportSummary } from "./import-summary.js";

export interface ProgressOptions {
  stream: ProgressStream;
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
  const { summary } = options;
  const started = Date.now();
  return startTicker({
    stream: options.stream,
    intervalMs: options.intervalMs,
    bar: () => {
      const done = finishedLines(summary);
      return `${bar(done, options.expectedLines)} ${ratePerSecond(done, started)}/s · ${failureCount(summary)} failed`;
    },
    line: () => {
      const done = finishedLines(summary);
      const of = options.expectedLines === undefined ? "" : `/${options.expectedLines}`;
      return `progress: ${done}${of} lines done (created ${summary.created}, already present ${summary.alreadyPresent}, failed ${failureCount(summary)}), ${ratePerSecond(done, started)} lines/s`;
    },
  });
}

const BAR_WIDTH = 24;

function bar(done: number, expected: number | undefined): string {
  if (expected === undefined || expected === 0) return `${done} lines`;
  // The expected count is an estimate (a trailing blank line, a header): never show 100% early.
  const fraction = Math.min(done / expected, 0.99);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${done}/${expected}`;
}
