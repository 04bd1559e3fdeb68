import type { NewPlantInput } from "@plantstore/contract";
import { PlantStoreError, type PlantStoreClient } from "@plantstore/client";
import type { SourceRecord } from "../records/read-records.js";
import { emptySummary, type ImportSummary, type LineFailure } from "./import-summary.js";

export interface ImportOptions {
  client: PlantStoreClient;
  records: AsyncIterable<SourceRecord>;
  concurrency: number;
  /** Make the store match the source: a line whose id is stored with another name or tag is edited to it. */
  update?: boolean;
  /** Cancels the creates in flight (Ctrl-C): the summary then counts them as unfinished. */
  signal?: AbortSignal;
}

/**
 * Creates every valid plant of the source with `concurrency` requests in flight. Bad lines are
 * counted and never stop the run; only a failure that every later line would share (the token
 * is refused, the server is unreachable) stops it early. The returned summary is also updated
 * while the import runs, for the progress display.
 */
export function importPlants(options: ImportOptions): { summary: ImportSummary; done: Promise<ImportSummary> } {
  const summary = emptySummary();
  const started = Date.now();
  let stopPulling = false;

  async function handle(record: SourceRecord): Promise<void> {
    if (!record.ok) {
      summary.invalid.push(failure(record.line, record.idText, record.reason));
      return;
    }
    // A repeated id is sent again: the server is idempotent (an identical repeat is already
    // present, a different one a conflict). Keeping the ids seen made memory grow with the file.
    const { plant, line } = record;
    await create(plant, line, String(plant.id));
  }

  async function create(plant: NewPlantInput, line: number, id: string): Promise<void> {
    try {
      const { outcome } = await options.client.createPlant(plant, { signal: options.signal });
      if (outcome === "created") summary.created++;
      else if (outcome === "replayed") summary.alreadyPresent++;
      else summary.createdOrAlreadyPresent++;
    } catch (error) {
      if (!(error instanceof PlantStoreError)) throw error;
      if (error.kind === "aborted") {
        summary.unfinished++;
      } else if (error.isConflict() && options.update) {
        await edit(plant, line, id);
      } else if (error.isConflict()) {
        summary.conflicts.push(failure(line, id, error.detail ?? error.message));
      } else if (error.isInvalidInput()) {
        summary.invalid.push(failure(line, id, error.detail ?? error.message));
      } else if (error.isAuthError() || error.isTransient()) {
        // Every other line would fail the same way (the token is refused, or the server stayed
        // unreachable or unavailable through every retry): stop, and let a re-run finish the job.
        summary.unfinished++;
        summary.stopped ??= error.isAuthError()
          ? `the server refused the token: ${error.detail}`
          : `the server is unavailable: ${error.message}`;
        stopPulling = true;
      } else {
        summary.failed.push(failure(line, id, error.message));
      }
    }
  }

  /** --update: the stored plant differs from the line: give it the line's name and tag. */
  async function edit(plant: NewPlantInput, line: number, id: string): Promise<void> {
    try {
      const wanted = plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
      await options.client.updatePlant(plant.id, wanted, { signal: options.signal });
      summary.updated++;
    } catch (error) {
      if (!(error instanceof PlantStoreError)) throw error;
      if (error.kind === "aborted") summary.unfinished++;
      else summary.failed.push(failure(line, id, error.message));
    }
  }

  async function lane(iterator: AsyncIterator<SourceRecord>): Promise<void> {
    while (!stopPulling && !options.signal?.aborted) {
      const next = await iterator.next();
      if (next.done) return;
      summary.lines++;
      await handle(next.value);
    }
  }

  async function run(): Promise<ImportSummary> {
    const iterator = options.records[Symbol.asyncIterator]();
    const lanes = Array.from({ length: options.concurrency }, () => lane(iterator));
    const results = await Promise.allSettled(lanes);
    await iterator.return?.();
    summary.elapsedMs = Date.now() - started;
    if (options.signal?.aborted) summary.stopped ??= "interrupted";
    const rejected = results.find((result) => result.status === "rejected");
    if (rejected !== undefined) throw (rejected as PromiseRejectedResult).reason;
    for (const list of [summary.conflicts, summary.invalid, summary.failed]) list.sort((a, b) => a.line - b.line);
    return summary;
  }

  return { summary, done: run() };
}

function failure(line: number, id: string | undefined, reason: string): LineFailure {
  return id === undefined ? { line, reason } : { line, id, reason };
}
