import { open, rename, rm, stat } from "node:fs/promises";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { PlantStoreError } from "@plantstore/client";
import { clientFor, type GlobalOptions } from "../connection.js";
import { exportPlants, type ExportProgress } from "../export/export-plants.js";
import { startExportProgress } from "../export/export-progress.js";
import { OutputError, outputSink } from "../export/output-sink.js";
import { describeFailure } from "../failure.js";
import { trapInterrupts } from "../interrupt.js";
import { formatFromName, type RecordFormat } from "../records/format.js";
import { ratePerSecond } from "../ticker.js";
import { UsageError } from "../usage-error.js";

export interface ExportCommandOptions {
  format?: RecordFormat;
  /** Plants per page request (1 to 1000). */
  pageSize: number;
  progressInterval: number;
}

/** What `export` writes when it writes to standard output and no --format is given. */
export const STDOUT_DEFAULT_FORMAT: RecordFormat = "jsonl";

interface Destination {
  /** How messages name it. */
  label: string;
  stream: Writable;
  /** Makes the written file the destination (a file is written beside it, then renamed). */
  commit(): Promise<void>;
  /** Removes what was written (a file only; standard output cannot be taken back). */
  discard(): Promise<void>;
}

/**
 * `plantstore export [file|-]`: writes every plant, in id order, as CSV or JSON Lines that
 * `plantstore import` reads back into the same plants. A file appears only when complete (it is
 * written beside the destination, then renamed). Exit codes: 0 written, 1 the server or the output
 * failed, 2 bad usage or an unwritable destination, 130 interrupted.
 */
export async function exportCommand(
  target: string,
  options: ExportCommandOptions,
  globals: GlobalOptions,
): Promise<number> {
  // `/dev/stdout` is standard output by another name: the summary must not go into the data.
  const toStdout = target === "-" || target === "/dev/stdout";
  const format = options.format ?? (toStdout ? STDOUT_DEFAULT_FORMAT : formatOf(target));
  const client = clientFor(globals);
  const destination = toStdout ? standardOutput() : await fileDestination(target);
  const sink = outputSink(destination.stream);
  const progress: ExportProgress = { plants: 0 };
  const interrupt = trapInterrupts("stopping the export");
  // Progress goes to standard error; not as a bar over the data when both are the same terminal.
  const showProgress = !(toStdout && process.stdout.isTTY === true);
  const stopProgress = showProgress
    ? startExportProgress({ stream: process.stderr, progress, intervalMs: options.progressInterval })
    : () => undefined;
  const started = Date.now();
  let failure: string | undefined;
  let complete = false;
  try {
    await exportPlants({ client, format, sink, pageSize: options.pageSize, signal: interrupt.signal, progress });
    await destination.commit();
    complete = true;
  } catch (error) {
    if (error instanceof OutputError) failure = `could not write ${destination.label}: ${error.message}`;
    else if (error instanceof PlantStoreError && error.kind !== "aborted") failure = describeFailure(error);
    else if (!(error instanceof PlantStoreError)) throw error;
  } finally {
    stopProgress();
    interrupt.release();
    sink.release();
  }

  if (!complete) {
    await destination.discard();
    const what = toStdout ? "standard output has only part of the plants" : `${target} was not written`;
    const why = failure === undefined ? "interrupted" : `failed: ${failure}`;
    process.stderr.write(`plantstore: export ${why} (after ${progress.plants} plants); ${what}\n`);
    return failure === undefined ? 130 : 1;
  }
  const elapsedMs = Date.now() - started;
  // The summary goes to standard output, unless the plants do.
  const summaryStream = toStdout ? process.stderr : process.stdout;
  summaryStream.write(
    globals.json
      ? `${JSON.stringify({ destination: target, format, plants: progress.plants, elapsedMs })}\n`
      : `exported ${progress.plants} plants to ${destination.label} (${format}) in ${(elapsedMs / 1000).toFixed(1)} s (${ratePerSecond(progress.plants, started, started + elapsedMs)} plants/s)\n`,
  );
  return 0;
}

function formatOf(target: string): RecordFormat {
  const format = formatFromName(target);
  if (format !== undefined) return format;
  throw new UsageError(`cannot tell the format of ${target} from its name: pass --format csv or --format jsonl`);
}

function standardOutput(): Destination {
  return { label: "standard output", stream: process.stdout, commit: async () => {}, discard: async () => {} };
}

/**
 * A regular file is written as `<target>.partial` and renamed to `<target>` once complete. Any
 * other existing target (a FIFO, a terminal, a device) is written into directly: renaming a file
 * onto a FIFO would replace the FIFO, and its reader would never see the plants.
 */
async function fileDestination(target: string): Promise<Destination> {
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`${target} is a directory`);
  if (existing !== undefined && !existing.isFile()) return directDestination(target);
  const partial = `${target}.partial`;
  const handle = await open(partial, "w").catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === "ENOENT" ? "no such directory" : (error.code ?? error.message);
    throw new UsageError(`cannot write ${target}: ${reason}`);
  });
  const stream = handle.createWriteStream();
  const close = async () => {
    if (!stream.closed) {
      stream.end();
      await finished(stream).catch(() => undefined);
    }
  };
  return {
    label: target,
    stream,
    commit: async () => {
      await endWriting(stream);
      await rename(partial, target).catch(asOutputError);
    },
    discard: async () => {
      await close();
      await rm(partial, { force: true });
    },
  };
}

/** Ends the stream and waits until everything is written; a failure is the output's. */
async function endWriting(stream: NodeJS.WritableStream): Promise<void> {
  stream.end();
  await finished(stream).catch(asOutputError);
}

function asOutputError(error: unknown): never {
  throw new OutputError((error as Error).message, { cause: error });
}

/** Writes straight into `target` (opening a FIFO waits for its reader, off the event loop). */
async function directDestination(target: string): Promise<Destination> {
  const handle = await open(target, "w").catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot write ${target}: ${error.code ?? error.message}`);
  });
  const stream = handle.createWriteStream();
  return {
    label: target,
    stream,
    commit: () => endWriting(stream),
    // What was written cannot be taken back; closing tells the reader the export ended.
    discard: async () => {
      if (!stream.closed) {
        stream.end();
        await finished(stream).catch(() => undefined);
      }
    },
  };
}
