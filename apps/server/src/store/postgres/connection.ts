import pg from "pg";
import type { StorageOptions } from "../storage.js";
import { describeDatabaseError } from "./errors.js";

/** Client-side bound on one query, so that a silently dead connection cannot hang a request. */
const QUERY_TIMEOUT_MS = 15_000;

const INT8_OID = 20;

/**
 * Type parsers for this pool only (the global `pg.types` stays untouched): int8 becomes an exact
 * bigint instead of node-postgres's default string, so ids and counts never pass through a double.
 */
const exactTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID
      ? (value: string) => BigInt(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

export function createPool(connectionString: string, options: StorageOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    application_name: "plantstore-server",
    types: exactTypes,
    // No session state is set up here (no SET, no LISTEN, no named statements): behind PgBouncer in
    // transaction mode, each transaction may run on a different server connection.
  });
  // A connection can die at any moment (PostgreSQL restarted, its backend terminated, the network
  // cut), idle in the pool or checked out between two queries, and node-postgres then emits 'error'
  // on it: an EventEmitter 'error' without a listener ends the process. Every connection gets its
  // listener as it is made, for its whole life. The query in flight fails by itself (the request
  // answers 503), and the pool discards the dead connection (pg-pool drops an idle one at once, and a
  // checked-out one when it is released, as it is no longer queryable) and opens new ones on demand.
  pool.on("connect", (client) => {
    client.on("error", (error) => {
      options.logger.warn(
        { reason: describeDatabaseError(error) },
        "PostgreSQL connection lost; the pool will reconnect",
      );
    });
  });
  // pg-pool re-emits an idle connection's error on the pool: already logged by the listener above.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Where the data lives, for logs: `postgres://user@host:port/database`. The password and the
 * query string (which may carry `password=` or `sslpassword=`) are never included.
 */
export function describePostgresLocation(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
    const port = url.port ? `:${url.port}` : "";
    return `postgres://${user}${url.hostname}${port}${url.pathname}`;
  } catch {
    return "postgres://(unparsable connection string)";
  }
}
