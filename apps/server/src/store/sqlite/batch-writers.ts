import { Worker } from "node:worker_threads";
import type { Database } from "better-sqlite3";
import { StorageUnavailableError } from "../storage.js";
import { CreateBatchWriter, decodeResults, encodeRows, type CreateRow, type RowResult } from "./create-batch.js";
import type { WriterReply, WriterRequest } from "./sqlite-writer-thread.js";

/** Where a batch of creates is committed. One batch at a time; the caller queues the rest. */
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

/**
 * The compiled writer thread. Under the test runner this module is TypeScript in src/, and a
 * worker needs JavaScript: it then uses the build's copy (tests depend on the build).
 */
function writerScript(): URL {
  const here = import.meta.url;
  if (here.endsWith(".js")) return new URL("./sqlite-writer-thread.js", here);
  return new URL("./sqlite-writer-thread.js", here.replace("/src/", "/dist/"));
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
    const worker = new Worker(writerScript(), { workerData: { path: this.path } });
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
