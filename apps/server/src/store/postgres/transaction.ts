import pg from "pg";
import { OutcomeUnknownError } from "../storage.js";
import { describeDatabaseError } from "./errors.js";

/** What a transaction's statements run on: a checked-out connection. */
export type Queryable = Pick<pg.PoolClient, "query">;

/**
 * Every write transaction starts here, in one round trip, with what it relies on stated, whatever
 * the server, role, database or connection string sets as defaults (a session-level SET would not
 * survive PgBouncer's transaction pooling, which hands each transaction to any server connection):
 * - READ COMMITTED: a write that must decide on a row (an edit, a conditional delete) locks it
 *   (FOR UPDATE) and, having waited for another transaction's lock, decides on the row as that one
 *   committed it: one winner, the others 412. Under REPEATABLE READ or SERIALIZABLE the waiter fails
 *   with a serialization failure instead (a 503 for what is a plain 412), and creates' ON CONFLICT
 *   likewise; nothing here needs a snapshot older than each statement.
 * - synchronous_commit=on: COMMIT returns only once the WAL is flushed (and, with synchronous
 *   standbys configured, once they have it), so a 200 is never sent for a change a crash could lose.
 */
const BEGIN_DURABLE = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit TO on";

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it returns, ROLLBACK when
 * it throws. The outcome is told apart the way a client needs it:
 * - a failure before COMMIT was sent changed nothing (PostgreSQL rolls back a transaction whose
 *   connection is lost), and is thrown as it came;
 * - COMMIT refused with an ERROR (a serialization failure, a deferred constraint) changed nothing;
 * - the connection lost, or the time limit reached, while COMMIT was on its way may or may not have
 *   committed: OutcomeUnknownError.
 * A connection that failed is discarded, never handed back to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query(BEGIN_DURABLE);
    result = await work(client);
  } catch (error) {
    await client.query("ROLLBACK").then(
      () => client.release(),
      (rollbackError: unknown) => client.release(asError(rollbackError)),
    );
    throw error;
  }
  try {
    await client.query("COMMIT");
  } catch (error) {
    client.release(asError(error));
    if (!commitMayHaveHappened(error)) throw error;
    throw new OutcomeUnknownError(`PostgreSQL failed during COMMIT: ${describeDatabaseError(error)}`, {
      cause: error,
    });
  }
  client.release();
  return result;
}

/**
 * An ERROR answering COMMIT means it was rolled back. Anything else (the session ended: FATAL,
 * PANIC, a reset socket, "Connection terminated"; or the client stopped waiting) leaves the
 * commit's fate unknown to us. The severity is in the server's language: one not recognised counts
 * as unknown, which is always safe to say.
 */
function commitMayHaveHappened(error: unknown): boolean {
  return !(error instanceof pg.DatabaseError && error.severity === "ERROR");
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
