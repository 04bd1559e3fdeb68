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

/**
 * Every session runs with synchronous_commit=on, whatever the server or role default is, so a
 * COMMIT returns only once its WAL is flushed (and, with synchronous standbys configured, once
 * they have it): a 200 is never sent for a plant a crash could lose. It is set with SET rather
 * than a startup option because connection poolers (PgBouncer) refuse unknown startup options.
 */
const SESSION_SETUP = "SET synchronous_commit TO on";

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
    // Awaited by pg-pool before the connection is handed out, so no query runs before it.
    // pg-pool awaits what onConnect returns (pg-pool/index.js: _promiseTry(onConnect).then(…)) before
    // handing the connection out; @types/pg declares it as returning void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- see above
    onConnect: async (client) => {
      await client.query(SESSION_SETUP);
    },
  });
  // An idle pooled connection that dies (database restarted, network cut) is dropped by the pool
  // and replaced on demand; without this listener the 'error' event would crash the process.
  pool.on("error", (error) => {
    options.logger.warn(
      { reason: describeDatabaseError(error) },
      "PostgreSQL connection lost; the pool will reconnect",
    );
  });
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
