import { Worker } from "node:worker_threads";
import { SqliteError } from "better-sqlite3";
import type { Logger } from "../../logger.js";
import { StorageUnavailableError } from "../storage.js";
import { mapSqliteError } from "./errors.js";

/**
 * A read on the event loop's thread that takes longer than this met a lock: SQLite waits for the
 * WAL's read locks in its own retry loop (up to ~10 s, whatever busy_timeout says), and the loop
 * stalls with it.
 */
const SLOW_READ_MS = 500;

/**
 * Guards the storage calls made on the event loop's thread (reads, and the synchronous part of
 * every call), so that a database another process keeps locked costs one stalled read, not every
 * request: one rule for their failures, and a fast refusal while the lock lasts.
 * - A SQLite failure that means "cannot serve now" (busy, locked, I/O, …) is StorageUnavailableError:
 *   503 STORAGE_UNAVAILABLE, as on PostgreSQL (it was a 500).
 * - Such a failure, or a call that blocked longer than SLOW_READ_MS, starts refusing: every guarded
 *   call is then refused at once (503) and `ping` says not ready, while a probe thread retries a
 *   read off the loop; its first success ends the refusal.
 */
export class LoopReads {
  private probe: Worker | undefined;

  constructor(
    private readonly path: string,
    private readonly logger?: Logger,
  ) {}

  /** True while reads are refused (the database is locked); /readyz then says not ready. */
  get refusing(): boolean {
    return this.probe !== undefined;
  }

  /** Wraps every method of `repository` (see the class comment); the result keeps its type. */
  guard<R extends object>(repository: R): R {
    const guarded = Object.create(repository) as R;
    for (const name of methodNames(repository)) {
      const method = (repository as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
      (guarded as Record<string, unknown>)[name] = (...args: unknown[]) =>
        this.run(() => method.apply(repository, args));
    }
    return guarded;
  }

  /** Runs one call under the guard: its synchronous part on this thread, its promise as it comes. */
  run<T>(run: () => T): T | Promise<never> {
    if (this.refusing) {
      return Promise.reject(new StorageUnavailableError("SQLite is locked by another process; retry later"));
    }
    const started = performance.now();
    let result: T;
    try {
      result = run();
    } catch (error) {
      return Promise.reject(this.failed(error));
    }
    if (performance.now() - started > SLOW_READ_MS) this.startRefusing();
    return result instanceof Promise
      ? (result.catch((error: unknown) => Promise.reject(this.failed(error))) as T)
      : result;
  }

  private failed(error: unknown): unknown {
    if (!(error instanceof SqliteError)) return error;
    const mapped = mapSqliteError(error);
    if (mapped instanceof StorageUnavailableError) this.startRefusing();
    return mapped;
  }

  private startRefusing(): void {
    if (this.probe !== undefined || this.path === ":memory:") return;
    // The compiled thread next to this module, as for the writer thread.
    const probe = new Worker(new URL("./read-probe-thread.js", import.meta.url.replace("/src/", "/dist/")), {
      workerData: { path: this.path },
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 16 },
    });
    probe.unref();
    this.logger?.warn(
      { location: this.path },
      "SQLite is locked by another process: refusing requests until it can be read",
    );
    const stop = () => {
      if (this.probe !== probe) return;
      this.probe = undefined;
      this.logger?.info({ location: this.path }, "SQLite can be read again: serving");
    };
    probe.once("message", stop);
    probe.once("error", stop);
    probe.once("exit", stop);
    this.probe = probe;
  }

  /** Ends a probe still running (at close). */
  async close(): Promise<void> {
    await this.probe?.terminate();
  }
}

function methodNames(object: object): string[] {
  const prototype = Object.getPrototypeOf(object) as object;
  return Object.getOwnPropertyNames(prototype).filter(
    (name) => name !== "constructor" && typeof (prototype as Record<string, unknown>)[name] === "function",
  );
}
