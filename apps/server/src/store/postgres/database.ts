import type pg from "pg";
import { StorageUnavailableError } from "../storage.js";
import { mapDatabaseErrors } from "./errors.js";
import { inTransaction, type Queryable } from "./transaction.js";

/**
 * The pool plus the bookkeeping every operation needs: error mapping, refusal after close, and a
 * record of operations in flight so that close() finishes them before ending the pool (pg-pool's
 * end() would leave requests still queued for a connection pending forever).
 *
 * Two ways in: `run` for reads (one statement on any pooled connection: a failure changed nothing),
 * `write` for anything that changes the database (one transaction, durable at COMMIT, whose failure
 * says whether the change may have happened: see inTransaction).
 */
export class PostgresDatabase {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(readonly pool: pg.Pool) {}

  run<T>(operation: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    return this.admit(() => this.query(operation, work));
  }

  write<T>(operation: string, work: (client: Queryable) => Promise<T>): Promise<T> {
    return this.admit(() => this.transaction(operation, work));
  }

  /**
   * Accepts an operation now (refused once close() began) and keeps close() waiting until it
   * settles, even if its query is only sent later (queued creates waiting for their batch).
   */
  admit<T>(start: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new StorageUnavailableError("PostgreSQL storage is closed"));
    const pending = start();
    this.inFlight.add(pending);
    const forget = () => this.inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
  }

  /** Runs work on the pool with errors mapped, for operations already admitted. */
  query<T>(operation: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    return mapDatabaseErrors(operation, () => work(this.pool));
  }

  /** Runs work in one write transaction with errors mapped, for operations already admitted. */
  transaction<T>(operation: string, work: (client: Queryable) => Promise<T>): Promise<T> {
    return mapDatabaseErrors(operation, () => inTransaction(this.pool, work));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      await this.pool.end();
    })();
    return this.closing;
  }
}
