import type pg from "pg";
import { StorageUnavailableError } from "../storage.js";
import { mapDatabaseErrors } from "./pg-errors.js";

/**
 * The pool plus the bookkeeping every operation needs: error mapping, refusal after close, and a
 * record of operations in flight so that close() finishes them before ending the pool (pg-pool's
 * end() would leave requests still queued for a connection pending forever).
 */
export class PostgresDatabase {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(readonly pool: pg.Pool) {}

  run<T>(operation: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new StorageUnavailableError("PostgreSQL storage is closed"));
    const pending = mapDatabaseErrors(operation, () => work(this.pool));
    this.inFlight.add(pending);
    const forget = () => this.inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      await this.pool.end();
    })();
    return this.closing;
  }
}
