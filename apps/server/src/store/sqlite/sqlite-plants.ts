import type { NewPlant } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { StorageUnavailableError, type CreateOutcome, type PlantRepository, type StoredPlant } from "../storage.js";
import type { BatchWriter } from "./batch-writers.js";
import type { CreateRow, RowResult } from "./create-batch.js";

interface PendingCreate {
  plant: NewPlant;
  resolve: (outcome: CreateOutcome) => void;
  reject: (error: Error) => void;
}

function stored(id: bigint, name: string, tag: string | null): StoredPlant {
  return tag === null ? { id, name } : { id, name, tag };
}

function outcomeOf(plant: NewPlant, result: RowResult): CreateOutcome | Error {
  switch (result.kind) {
    case "created":
      return { kind: "created", plant: stored(plant.id, plant.name, plant.tag ?? null) };
    case "existing": {
      const existing = stored(plant.id, result.name, result.tag);
      return existing.name === plant.name && existing.tag === plant.tag
        ? { kind: "replayed", plant: existing }
        : { kind: "conflict", existing };
    }
    case "failed":
      return result.unavailable ? new StorageUnavailableError(result.message) : new Error(result.message);
  }
}

/**
 * Plants in SQLite with group commit. Creates queue up while a batch is being committed; when it
 * is on disk, everything queued meanwhile goes out as the next batch: one transaction, one fsync.
 * Under load the batches grow by themselves; alone, a create is committed at once. Each promise
 * resolves only once its transaction is durable. Reads use this thread's own connection.
 */
export class SqlitePlantRepository implements PlantRepository {
  private pending: PendingCreate[] = [];
  private inFlight: Promise<void> | undefined;
  private flushScheduled = false;
  private closed = false;
  private readonly select: Statement<[bigint], { name: string; tag: string | null }>;
  private readonly countAll: Statement<[], { n: number }>;

  constructor(
    db: Database,
    private readonly writer: BatchWriter,
  ) {
    this.select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
    this.countAll = db.prepare("SELECT count(*) AS n FROM plants");
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.closed) return Promise.reject(new StorageUnavailableError("storage is closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ plant, resolve, reject });
      this.scheduleFlush();
    });
  }

  async find(id: bigint): Promise<StoredPlant | undefined> {
    const row = this.select.get(id);
    return row === undefined ? undefined : stored(id, row.name, row.tag);
  }

  async count(): Promise<number> {
    return this.countAll.get()!.n;
  }

  /** Commits everything queued, then closes the writer: nothing acknowledged is left behind. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight || this.pending.length > 0) {
      if (!this.inFlight) this.flush();
      await this.inFlight;
    }
    await this.writer.close();
  }

  /** After the current I/O phase, so that every request read in it joins the batch. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.inFlight) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0 || this.inFlight) return;
    this.pending = [];
    const rows = batch.map(({ plant }): CreateRow => [plant.id, plant.name, plant.tag ?? null]);
    this.inFlight = this.writer.write(rows).then(
      (results) =>
        batch.forEach((item, index) => {
          const outcome = outcomeOf(item.plant, results[index]!);
          if (outcome instanceof Error) item.reject(outcome);
          else item.resolve(outcome);
        }),
      (error: Error) => batch.forEach((item) => item.reject(error)),
    );
    void this.inFlight.finally(() => {
      this.inFlight = undefined;
      if (this.pending.length > 0) this.scheduleFlush();
    });
  }
}
