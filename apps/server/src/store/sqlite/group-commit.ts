import { Worker } from "node:worker_threads";
import type { NewPlant } from "@plantstore/contract";
import type { Database } from "better-sqlite3";
import { decideExisting, plantFromRow } from "../plant-row.js";
import { StorageUnavailableError, type CreateDecision } from "../storage.js";
import { CreateBatchWriter, decodeResults, encodeRows, type CreateRow, type RowResult } from "./batch-writer.js";
import type { WriterReply, WriterRequest } from "./writer-thread.js";

interface PendingCreate {
  plant: NewPlant;
  resolve: (decision: CreateDecision) => void;
  reject: (error: Error) => void;
}

function decisionOf(plant: NewPlant, result: RowResult): CreateDecision | Error {
  switch (result.kind) {
    case "created":
      return { kind: "created", plant: plantFromRow({ id: plant.id, name: plant.name, tag: plant.tag ?? null }) };
    case "existing":
      return decideExisting(plant, plantFromRow({ id: plant.id, name: result.name, tag: result.tag }));
    case "failed":
      return result.unavailable ? new StorageUnavailableError(result.message) : new Error(result.message);
  }
}

/**
 * Group commit for SQLite. Creates queue up while a batch is being committed; when it is on disk,
 * everything queued meanwhile goes out as the next batch: one transaction, one fsync. Under load
 * the batches grow by themselves; alone, a create is committed at once. Each promise resolves only
 * once its transaction is durable.
 */
export class GroupCommit {
  private pending: PendingCreate[] = [];
  private inFlight: Promise<void> | undefined;
  private flushScheduled = false;
  private closed = false;

  constructor(private readonly writer: BatchWriter) {}

  create(plant: NewPlant): Promise<CreateDecision> {
    if (this.closed) return Promise.reject(new StorageUnavailableError("storage is closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ plant, resolve, reject });
      this.scheduleFlush();
    });
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
    const settled = this.writer.write(rows).then(
      (results) =>
        batch.forEach((item, index) => {
          const decision = decisionOf(item.plant, results[index]!);
          if (decision instanceof Error) item.reject(decision);
          else item.resolve(decision);
        }),
      (error: Error) => batch.forEach((item) => item.reject(error)),
    );
    this.inFlight = settled.finally(() => {
      this.inFlight = undefined;
      if (this.pending.length > 0) this.scheduleFlush();
    });
  }
}

/** Where a batch of creates is committed. One batch at a time; the group commit queues the rest. */
export interface BatchWriter {
  write(rows: CreateRow[]): Promise<RowResult[]>;
  close(): Promise<void>;
}

/** Commits on the calling thread. Used for `sqlite::memory:`, which one connection alone can see. */
export class InlineBatchWriter implements BatchWriter {
  private readonly writer: CreateBatchWriter;
  constructor(db: Database) {
    this.writer = new CreateBatchWriter(db);
  }
  async write(rows: CreateRow[]): Promise<RowResult[]> {
    return this.writer.write(rows);
  }
  async close(): Promise<void> {}
}

/** Commits on a writer thread, so that fsync never blocks the event loop. Restarts it if it dies. */
export class ThreadBatchWriter implements BatchWriter {
  private worker: Worker | undefined;
  private waiting: { resolve: (reply: WriterReply) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly path: string) {}

  write(rows: CreateRow[]): Promise<RowResult[]> {
    return this.send({ batch: encodeRows(rows) }).then((reply) =>
      "results" in reply ? decodeResults(reply.results) : [],
    );
  }

  async close(): Promise<void> {
    if (this.worker === undefined) return;
    const worker = this.worker;
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    await this.send({ close: true }).catch(() => undefined);
    await exited;
  }

  private send(request: WriterRequest): Promise<WriterReply> {
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    // The compiled thread next to this module: tests build first (see the vitest preset), so the
    // thread always runs the current source.
    const worker = new Worker(new URL("./writer-thread.js", import.meta.url.replace("/src/", "/dist/")), {
      workerData: { path: this.path },
    });
    worker.on("message", (reply: WriterReply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve(reply);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(new StorageUnavailableError(`SQLite writer stopped: ${error.message}`, { cause: error }));
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
    return worker;
  }
}
