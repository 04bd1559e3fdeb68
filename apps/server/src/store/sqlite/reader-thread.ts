/**
 * The reader thread: owns the connection every read of the server goes through, so that a read
 * which meets a lock held by another process waits here, never on the event loop's thread (SQLite
 * waits for the WAL's read locks in its own retry loop, up to ~10 s whatever busy_timeout says).
 * Answers each read in order; counts the reads it begins and ends in shared memory, which is how
 * the event loop tells a thread stuck in SQLite from one that is merely busy (reader.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { openConnection } from "./connection.js";
import { mapSqliteError } from "./errors.js";
import type { ReaderReply, ReaderRequest, ReaderThreadData } from "./reader.js";
import { SqliteReads } from "./reads.js";
import { StorageUnavailableError } from "../storage.js";

const port = parentPort!;
const { path, progress: progressBuffer } = workerData as ReaderThreadData;
const progress = new Int32Array(progressBuffer);

/** Runs `work` as one read for the watchdog: begun before, ended after, whatever it throws. */
function counted<T>(work: () => T): T {
  Atomics.add(progress, 0, 1);
  try {
    return work();
  } finally {
    Atomics.add(progress, 1, 1);
  }
}

// Opening reads the file too (the WAL's header), so it counts as a read.
const db = counted(() => openConnection(path));
const reads = new SqliteReads(db);

port.on("message", (message: ReaderRequest) => {
  if ("close" in message) {
    // Closed here, before the thread ends: a connection left to the thread's teardown is not safe.
    db.close();
    port.postMessage({ closed: true } satisfies ReaderReply);
    port.close();
    return;
  }
  const { id, name, args } = message;
  try {
    const read = reads[name] as (...values: unknown[]) => unknown;
    const value = counted(() => read.apply(reads, args));
    port.postMessage({ id, value } satisfies ReaderReply);
  } catch (error) {
    const mapped = mapSqliteError(error);
    port.postMessage({
      id,
      error: { message: mapped.message, unavailable: mapped instanceof StorageUnavailableError },
    } satisfies ReaderReply);
  }
});
