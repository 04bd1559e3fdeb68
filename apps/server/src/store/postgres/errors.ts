import pg from "pg";
import { StorageUnavailableError } from "../storage.js";

/** Socket-level failures: the database host is down, unreachable, or the connection broke. */
const NETWORK_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs that mean "the database cannot serve this right now, try again later", not "this
 * request is wrong": connection exceptions (08), insufficient resources (53: too many
 * connections, disk full), operator intervention (57: shutdown, crash, starting up, statement
 * timeout), system I/O errors (58), serialization failures/deadlocks (40), and a read-only
 * transaction (25006: connected to a standby after a failover).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57|58|40)|^25006$/;

/** node-postgres and pg-pool report these without a code; their messages are stable across 8.x. */
const DRIVER_UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Cannot use a pool after calling end/;

function isDatabaseError(error: unknown): error is pg.DatabaseError {
  return error instanceof pg.DatabaseError;
}

/** True when the error says the database is out of reach, not that the statement was wrong. */
export function isUnavailable(error: unknown): boolean {
  if (isDatabaseError(error)) return TRANSIENT_SQLSTATE.test(error.code ?? "");
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && NETWORK_ERROR_CODES.has(code)) return true;
  // An AggregateError (every address of a host refused) carries its codes on the inner errors.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true;
  return DRIVER_UNAVAILABLE_MESSAGE.test(error.message);
}

/** A short description for logs and for the 503 message: no SQL, no stack. */
export function describeDatabaseError(error: unknown): string {
  if (isDatabaseError(error)) return `${error.code ?? "?"} ${error.message}`;
  if (error instanceof AggregateError && error.errors.length > 0) return describeDatabaseError(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined ? `${code} ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * Runs one storage operation and turns "database unreachable" into StorageUnavailableError (the
 * HTTP layer answers 503 with Retry-After); every other error passes through unchanged (a 500,
 * which is a bug to fix, never a disguised outage).
 */
export async function mapDatabaseErrors<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StorageUnavailableError) throw error;
    if (isUnavailable(error)) {
      throw new StorageUnavailableError(`PostgreSQL is unavailable (${operation}): ${describeDatabaseError(error)}`, {
        cause: error,
      });
    }
    throw error;
  }
}
