import { ratePerSecond, startTicker, type ProgressStream } from "../ticker.js";
import type { ExportProgress } from "./export-plants.js";

/**
 * Shows how an export is going, in the import's style: a count redrawn in place on a terminal,
 * otherwise a plain line every `intervalMs`. (The total is not known before the last page.)
 */
export function startExportProgress(options: {
  stream: ProgressStream;
  progress: ExportProgress;
  intervalMs: number;
}): () => void {
  const { progress } = options;
  const started = Date.now();
  return startTicker({
    stream: options.stream,
    intervalMs: options.intervalMs,
    bar: () => `${progress.plants} plants exported · ${ratePerSecond(progress.plants, started)}/s`,
    line: () => `progress: ${progress.plants} plants exported, ${ratePerSecond(progress.plants, started)} plants/s`,
  });
}
