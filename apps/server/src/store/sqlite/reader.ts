import { Worker } from "node:worker_threads";
import type { Database } from "better-sqlite3";
import type { Logger } from "../../logger.js";
import { Slots } from "../../slots.js";
import { StorageUnavailableError } from "../storage.js";
import { mapSqliteError } from "./errors.js";
import { SqliteReads } from "./reads.js";
import { threadUrl } from "./thread-url.js";

/** The reads SqliteReads offers, by name, with their arguments and results. */
export type ReadName = keyof SqliteReads;
type ReadArgs<K extends ReadName> = Parameters<SqliteReads[K]>;
type ReadResult<K extends ReadName> = ReturnType<SqliteReads[K]>;

/** Where the server's reads run: the reader thread (a file), or this thread (`sqlite::memory:`). */
export interface Reader {
  read<K extends ReadName>(name: K, ...args: ReadArgs<K>): Promise<ReadResult<K>>;
  /** True while reads are refused because the file is locked by another process. */
  readonly refusing: boolean;
  close(): Promise<void>;
}

/** A read's `id` is its own (never reused); `slot` is where it waits (reused: see Slots). */
export type ReadRequest = { id: number; slot: number; name: ReadName; args: unknown[] };
export type ReadReply =
  | { id: number; slot: number; value: unknown }
  | { id: number; slot: number; error: { message: string; unavailable: boolean } };
/** The reads asked for in one turn of the event loop go to the thread together, and come back together. */
export type ReaderRequest = { reads: ReadRequest[] } | { close: true };
export type ReaderReply = { replies: ReadReply[] } | { closed: true };
export interface ReaderThreadData {
  path: string;
  /** Two Int32 counters the thread keeps: read transactions whose beginning it began, and ended (reader-thread.ts). */
  progress: SharedArrayBuffer;
}

/** Reads on this thread's connection: for `sqlite::memory:`, which that connection alone can see (and no other process can lock). */
export class InlineReader implements Reader {
  readonly refusing = false;
  private readonly reads: SqliteReads;

  constructor(db: Database) {
    this.reads = new SqliteReads(db);
  }

  async read<K extends ReadName>(name: K, ...args: ReadArgs<K>): Promise<ReadResult<K>> {
    const read = this.reads[name] as (...values: ReadArgs<K>) => ReadResult<K>;
    try {
      return read.apply(this.reads, args);
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  async close(): Promise<void> {}
}

/**
 * How often the watchdog looks at the reader thread. A read transaction still beginning at two looks
 * in a row has waited at least this long for a lock: the file is locked by another process. Only
 * the beginning is watched (taking the WAL read lock: microseconds when nothing holds it), never
 * the reading after it, so a long healthy read is never refused. It is how long the first request
 * that meets a lock waits before its 503 (between one and two ticks).
 */
const WATCHDOG_MS = 500;
/** How long between two tries to read while the file stays locked. */
const PROBE_RETRY_MS = 100;

interface Waiting {
  id: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Reads on the reader thread (reader-thread.ts), so that the event loop never waits for SQLite.
 * When the file is locked by another process, a read may wait there for seconds while its
 * transaction begins; the watchdog sees it (and only that: a read that holds its snapshot is
 * reading, however long it takes), and from then on reads are refused at once with 503 STORAGE_UNAVAILABLE and `refusing` makes
 * /readyz say not ready, while a probe read waits on the thread; its first success ends the refusal.
 * A read that fails with "cannot serve now" (busy, I/O, …) starts the same refusal.
 */
export class ThreadReader implements Reader {
  private worker: Worker | undefined;
  /** The running thread's counters (reader-thread.ts): beginnings begun, ended. A new thread, new counters. */
  private progress = newProgress();
  private readonly waiting = new Slots<Waiting>();
  /** Reads asked for in this turn of the event loop, not yet posted to the thread. */
  private queued: ReadRequest[] = [];
  private nextId = 0;
  /** Beginnings begun at the last look, while one was in progress; -1 when none was. */
  private begunAtLastLook = -1;
  private readonly watchdog: NodeJS.Timeout;
  private refusal: { probe: () => void } | undefined;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly logger?: Logger,
  ) {
    this.worker = this.start();
    this.watchdog = setInterval(() => this.look(), WATCHDOG_MS).unref();
  }

  get refusing(): boolean {
    return this.refusal !== undefined;
  }

  read<K extends ReadName>(name: K, ...args: ReadArgs<K>): Promise<ReadResult<K>> {
    if (this.closed) return Promise.reject(new StorageUnavailableError("storage is closed"));
    if (this.refusing) return Promise.reject(locked());
    return this.send(name, args) as Promise<ReadResult<K>>;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    const locked = this.refusing;
    this.refusal = undefined;
    this.post();
    const worker = this.worker;
    if (worker === undefined) return;
    // The thread closes its connection and ends after the reads before this message.
    worker.postMessage({ close: true } satisfies ReaderRequest);
    if (locked) {
      // It may wait in SQLite for another process's lock for seconds yet: a thread cannot be
      // stopped inside a better-sqlite3 call, so it is left to end on its own or with the process.
      worker.unref();
      return;
    }
    worker.ref();
    await new Promise((resolve) => worker.once("exit", resolve));
  }

  private send(name: ReadName, args: unknown[]): Promise<unknown> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    // The thread keeps the process alive only while a read waits for it (a CLI command's, say).
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      const slot = this.waiting.put({ id, resolve, reject });
      if (this.queued.length === 0) setImmediate(() => this.post());
      this.queued.push({ id, slot, name, args });
    });
  }

  /**
   * Posts the reads queued in this turn of the event loop as one message, after its I/O phase (as
   * the group commit sends its writes): one wake-up of the thread and one answer for all of them,
   * where a message per read cost two wake-ups and two messages each.
   */
  private post(): void {
    const reads = this.queued;
    if (reads.length === 0) return;
    this.queued = [];
    (this.worker ??= this.start()).postMessage({ reads } satisfies ReaderRequest);
  }

  private start(): Worker {
    // A thread that died while beginning a read left its counters unequal for good: never reuse them.
    this.progress = newProgress();
    this.begunAtLastLook = -1;
    const worker = new Worker(threadUrl("reader-thread", import.meta.url), {
      workerData: { path: this.path, progress: this.progress.buffer as SharedArrayBuffer } satisfies ReaderThreadData,
      // The thread only moves rows from SQLite: a small heap is plenty, and every MiB is RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    worker.unref();
    worker.on("message", (message: ReaderReply) => {
      if ("closed" in message) return;
      for (const reply of message.replies) this.answer(reply);
      if (this.waiting.size === 0) worker.unref();
    });
    const stopped = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      this.queued = [];
      const lost = this.waiting.takeAll();
      // Reads change nothing: refused, they may simply be asked again.
      for (const waiting of lost)
        waiting.reject(new StorageUnavailableError(`SQLite reader stopped: ${error.message}`));
    };
    worker.on("error", stopped);
    worker.on("exit", (code) => stopped(new Error(`exit code ${code}`)));
    return worker;
  }

  private answer(reply: ReadReply): void {
    // A read refused meanwhile (startRefusing) left its slot to another: its late answer is no one's.
    const waiting = this.waiting.at(reply.slot)?.id === reply.id ? this.waiting.take(reply.slot) : undefined;
    if ("value" in reply) return waiting?.resolve(reply.value);
    if (!reply.error.unavailable) return waiting?.reject(new Error(reply.error.message));
    waiting?.reject(new StorageUnavailableError(reply.error.message));
    this.startRefusing(reply.error.message);
  }

  /** True while the thread is beginning a read transaction (the one step a lock can hold up). */
  private beginning(): boolean {
    return Atomics.load(this.progress, 0) !== Atomics.load(this.progress, 1);
  }

  /** The watchdog: the same read still beginning at two looks in a row means the file is locked. */
  private look(): void {
    if (this.refusing || !this.beginning()) {
      this.begunAtLastLook = -1;
      return;
    }
    const begun = Atomics.load(this.progress, 0);
    if (begun === this.begunAtLastLook) this.startRefusing(`a read waited over ${WATCHDOG_MS} ms for a lock`);
    else this.begunAtLastLook = begun;
  }

  private startRefusing(reason: string): void {
    if (this.refusing || this.closed) return;
    this.logger?.warn(
      { location: this.path, reason },
      "SQLite is locked by another process: refusing requests until it can be read",
    );
    this.queued = [];
    const waiting = this.waiting.takeAll();
    this.worker?.unref();
    for (const { reject } of waiting) reject(locked());
    // One probe at a time; it queues behind the read that waits now, and is retried until one succeeds.
    const refusal = {
      probe: () => {
        if (this.refusal !== refusal) return;
        this.send("readable", []).then(
          () => {
            if (this.refusal !== refusal) return;
            this.refusal = undefined;
            this.logger?.info({ location: this.path }, "SQLite can be read again: serving");
          },
          () => setTimeout(refusal.probe, PROBE_RETRY_MS).unref(),
        );
      },
    };
    this.refusal = refusal;
    refusal.probe();
  }
}

function newProgress(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

function locked(): StorageUnavailableError {
  return new StorageUnavailableError("SQLite is locked by another process; retry later");
}
