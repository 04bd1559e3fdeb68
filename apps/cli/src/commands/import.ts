import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { clientFor, type GlobalOptions } from "../connection.js";
import { countLines } from "../import/count-lines.js";
import { importPlants } from "../import/import-plants.js";
import { formatSummary, importSucceeded } from "../import/import-summary.js";
import { startProgress } from "../import/progress.js";
import { formatFromName, type RecordFormat } from "../records/format.js";
import { readRecords, SourceError } from "../records/read-records.js";
import { trapInterrupts } from "../interrupt.js";
import { UsageError } from "../usage-error.js";

export interface ImportCommandOptions {
  format?: RecordFormat;
  concurrency: number;
  progressInterval: number;
  /** Edit plants whose stored name or tag differs from the line (else they are conflicts). */
  update?: boolean;
}

/** Exit codes: 0 every line stored, 1 some line failed or the run stopped, 2 bad usage or source, 130 interrupted. */
export async function importCommand(
  source: string,
  options: ImportCommandOptions,
  globals: GlobalOptions,
): Promise<number> {
  const format = options.format ?? formatOf(source);
  const client = clientFor(globals);
  await checkReadable(source);
  const input: Readable = source === "-" ? process.stdin : createReadStream(source);
  const expectedLines =
    source === "-" ? undefined : Math.max(0, (await countLines(source)) - (format === "csv" ? 1 : 0));

  // Each create in flight listens to the signal (its attempt and its backoff wait).
  const interrupt = trapInterrupts("finishing the summary", options.concurrency * 2 + 10);
  const { summary, done } = importPlants({
    client,
    records: readRecords(input, format, interrupt.signal),
    concurrency: options.concurrency,
    update: options.update ?? false,
    signal: interrupt.signal,
  });
  const stopProgress = startProgress({
    stream: process.stderr,
    summary,
    expectedLines,
    intervalMs: options.progressInterval,
  });
  try {
    await done;
  } catch (error) {
    if (error instanceof SourceError) throw new UsageError(`${source}: ${error.message}`);
    throw error;
  } finally {
    stopProgress();
    interrupt.release();
  }

  process.stdout.write(globals.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary, source));
  if (interrupt.signal.aborted) return 130;
  return importSucceeded(summary) ? 0 : 1;
}

function formatOf(source: string): RecordFormat {
  if (source === "-") throw new UsageError("reading standard input needs --format csv or --format jsonl");
  const format = formatFromName(source);
  if (format !== undefined) return format;
  throw new UsageError(`cannot tell the format of ${source} from its name: pass --format csv or --format jsonl`);
}

async function checkReadable(source: string): Promise<void> {
  if (source === "-") return;
  try {
    const stats = await stat(source);
    if (!stats.isFile()) throw new UsageError(`${source} is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `${source}: no such file` : `${source}: cannot read it (${code})`);
  }
}
