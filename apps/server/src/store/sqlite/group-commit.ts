import { Worker } from "node:worker_threads";
import type { NewPlant } from "@plantstore/contract";
import type { Database } from "better-sqlite3";
import { decideExisting, plantFromRow } from "../plant-row.js";
import {
  OutcomeUnknownError,
  StorageUnavailableError,
  type BatchObserver,
  type CreateDecision,
  type DeleteDecision,
  type StoredPlant,
  type UpdateDecision,
  type VersionCondition,
} from "../storage.js";
import {
  BatchTransaction,
  decodeOutcome,
  encodeOps,
  type BatchOutcome,
  type ResultOf,
  type WriteOp,
  type WriteResult,
} from "./batch-transaction.js";
import type { WebhookWrite } from "./webhook-writes.js";
import { threadUrl } from "./thread-url.js";
import type { WriterReply, WriterRequest } from "./writer-thread.js";

/** A write waiting for its batch, and what its result means once the batch is on disk. */
interface PendingWrite {
  op: WriteOp;
  settle: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

function failure(result: Extract<WriteResult, { kind: "failed" }>): Error {
  return result.unavailable ? new StorageUnavailableError(result.message) : new Error(result.message);
}

/** True when `result` answers a write of `op`'s kind (the writer answers each write, in order, by its kind). */
function answers<Op extends WriteOp>(op: Op, result: WriteResult): result is ResultOf<Op["kind"]> {
  return result.kind === op.kind;
}

function createDecision(plant: NewPlant, { existing }: ResultOf<"create">): CreateDecision {
  return existing === null
    ? { kind: "created", plant: plantFromRow({ id: plant.id, name: plant.name, tag: plant.tag ?? null }) }
    : decideExisting(plant, plantFromRow({ id: plant.id, ...existing }));
}

function deleteDecision(id: bigint, result: ResultOf<"delete">): DeleteDecision {
  return result.removed === null
    ? { kind: result.refused }
    : { kind: "deleted", plant: plantFromRow({ id, ...result.removed }) };
}

function updateDecision(plant: StoredPlant, { decision }: ResultOf<"update">): UpdateDecision {
  return decision === "updated" || decision === "unchanged" ? { kind: decision, plant } : { kind: decision };
}

/**
 * Group commit for SQLite. Writes (creates, deletes, webhook bookkeeping) queue up while a batch is being committed;
 * when it is on disk, everything queued meanwhile goes out as the next batch, in arrival order: one
 * transaction, one fsync. Under load the batches grow by themselves; alone, a write is committed at
 * once. Each promise resolves only once its transaction is durable.
 */
export class GroupCommit {
  private pending: PendingWrite[] = [];
  private inFlight: Promise<void> | undefined;
  private flushScheduled = false;
  private closed = false;

  constructor(
    private readonly writer: BatchWriter,
    private readonly observe: BatchObserver = () => {},
    private readonly onDeliveries: () => void = () => {},
    private readonly onChanges: () => void = () => {},
  ) {}

  create(plant: NewPlant): Promise<CreateDecision> {
    const op = { kind: "create", id: plant.id, name: plant.name, tag: plant.tag ?? null } as const;
    return this.enqueue(op, (result) => createDecision(plant, result));
  }

  update(plant: StoredPlant, ifMatch: VersionCondition | undefined): Promise<UpdateDecision> {
    const op = { kind: "update", id: plant.id, name: plant.name, tag: plant.tag ?? null, ifMatch } as const;
    return this.enqueue(op, (result) => updateDecision(plant, result));
  }

  delete(id: bigint, ifMatch: VersionCondition | undefined): Promise<DeleteDecision> {
    return this.enqueue({ kind: "delete", id, ifMatch } as const, (result) => deleteDecision(id, result));
  }

  /**
   * A webhook write, committed with the next batch; resolves to what it answered. `T` is what
   * WebhookWrites.run returns for this write (it crossed the thread boundary as JSON, untyped).
   */
  webhook<T>(write: WebhookWrite): Promise<T> {
    return this.enqueue({ kind: "webhook", write } as const, (result) => result.value as T);
  }

  /** Prunes the change log (its retention), committed with the next batch; resolves to how many were deleted. */
  pruneChanges(before: number, limit: number): Promise<number> {
    return this.enqueue({ kind: "prune-changes", before, limit } as const, (result) => result.pruned);
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

  /** Queues `op`; `decide` turns its result into the answer, unless it failed. */
  private enqueue<Op extends WriteOp, T>(op: Op, decide: (result: ResultOf<Op["kind"]>) => T): Promise<T> {
    if (this.closed) return Promise.reject(new StorageUnavailableError("storage is closed"));
    return new Promise((resolve, reject) => {
      const settle = (result: WriteResult) => {
        if (result.kind === "failed") reject(failure(result));
        else if (answers(op, result)) resolve(decide(result));
        else reject(new Error(`a ${op.kind} was answered as a ${result.kind}`));
      };
      this.pending.push({ op, settle, reject });
      this.scheduleFlush();
    });
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
    const started = performance.now();
    const settled = this.writer.write(batch.map((item) => item.op)).then(
      ({ results, deliveries, changes }) => {
        this.observe(batch.length, (performance.now() - started) / 1000);
        batch.forEach((item, index) => item.settle(results[index]!));
        if (deliveries > 0) this.onDeliveries();
        if (changes > 0) this.onChanges();
      },
      (error: Error) => batch.forEach((item) => item.reject(error)),
    );
    this.inFlight = settled.finally(() => {
      this.inFlight = undefined;
      if (this.pending.length > 0) this.scheduleFlush();
    });
  }
}

/** Where a batch of writes is committed. One batch at a time; the group commit queues the rest. */
export interface BatchWriter {
  write(ops: WriteOp[]): Promise<BatchOutcome>;
  close(): Promise<void>;
}

/** Commits on the calling thread. Used for `sqlite::memory:`, which one connection alone can see. */
export class InlineBatchWriter implements BatchWriter {
  private readonly transaction: BatchTransaction;
  constructor(db: Database) {
    this.transaction = new BatchTransaction(db);
  }
  async write(ops: WriteOp[]): Promise<BatchOutcome> {
    return this.transaction.run(ops);
  }
  async close(): Promise<void> {}
}

/** Commits on a writer thread, so that fsync never blocks the event loop. Restarts it if it dies. */
export class ThreadBatchWriter implements BatchWriter {
  private worker: Worker | undefined;
  private waiting: { resolve: (reply: WriterReply) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly path: string) {}

  write(ops: WriteOp[]): Promise<BatchOutcome> {
    return this.send({ batch: encodeOps(ops) }).then((reply) =>
      "outcome" in reply ? decodeOutcome(reply.outcome) : { results: [], deliveries: 0, changes: 0 },
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
    const worker = new Worker(threadUrl("writer-thread", import.meta.url), {
      workerData: { path: this.path },
      // The thread only moves batches to SQLite: a small heap is plenty, and every MiB is RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 },
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
      // The thread had the batch: it may have committed it before it stopped.
      waiting?.reject(new OutcomeUnknownError(`SQLite writer stopped: ${error.message}`, { cause: error }));
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
    return worker;
  }
}
