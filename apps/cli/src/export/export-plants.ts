import type { PlantStoreClient } from "@plantstore/client";
import type { RecordFormat } from "../records/format.js";
import { headerOf, recordOf } from "../records/write-records.js";
import type { OutputSink } from "./output-sink.js";

export interface ExportOptions {
  client: PlantStoreClient;
  format: RecordFormat;
  sink: OutputSink;
  /** Plants per page request (1 to 1000). */
  pageSize: number;
  /** Stops the export (Ctrl-C): the page request in flight is cancelled. */
  signal?: AbortSignal;
  /** Updated while the export runs, for the progress display. */
  progress: ExportProgress;
}

export interface ExportProgress {
  plants: number;
}

/** Text is handed to the output in chunks of about this many characters. */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * Writes every plant of the store, in id order, following the pages: one page in memory at a time,
 * and the output's backpressure respected, so memory stays constant however many plants there are.
 * Resolves to the number of plants written; throws the client's error or the output's.
 */
export async function exportPlants(options: ExportOptions): Promise<number> {
  const { format, sink, progress } = options;
  let chunk = headerOf(format);
  for await (const plant of options.client.plants({ pageSize: options.pageSize, signal: options.signal })) {
    chunk += recordOf(plant, format);
    progress.plants++;
    if (chunk.length >= CHUNK_CHARACTERS) {
      await sink.write(chunk);
      chunk = "";
    }
  }
  if (chunk !== "") await sink.write(chunk);
  await sink.flush();
  return progress.plants;
}
