/**
 * The reader thread: owns the connection every read of the server goes through, so that a read
 * which meets a lock held by another process waits here, never on the event loop's thread (SQLite
 * waits for the WAL's read locks in its own retry loop, up to ~10 s whatever busy_timeout says).
 * Answers each read in order, each in its own read transaction (one snapshot).
 *
 * A lock held by another process can make a read wait only while its transaction begins (taking a
 * WAL read lock, or opening the file); once it holds its snapshot, a read reads pages and waits for
 * no one, however long it runs. So the thread counts, in shared memory, only those beginnings —
 * begun, ended — which is how the event loop tells a thread waiting for a lock from one that is
 * reading (reader.ts): a long healthy read is never taken for a lock.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openConnection } from "./connection.js";
import { mapSqliteError } from "./errors.js";
import type { ReadReply, ReadRequest, ReaderReply, ReaderRequest, ReaderThreadData } from "./reader.js";
import { SqliteReads } from "./reads.js";
import { StorageUnavailableError } from "../storage.js";

const port = parentPort!;
const { path, progress: progressBuffer } = workerData as ReaderThreadData;
const progress = new Int32Array(progressBuffer);

/** Runs `work` as one wait the watchdog may see: begun before, ended after, whatever it throws. */
function watched<T>(work: () => T): T {
  Atomics.add(progress, 0, 1);
  try {
    return work();
  } finally {
    Atomics.add(progress, 1, 1);
  }
}

// Opening reads the file too (the WAL's header), so it is watched.
const db = watched(() => openConnection(path));
const reads = new SqliteReads(db);
const begin = db.prepare("BEGIN");
const end = db.prepare("COMMIT");

port.on("message", (message: ReaderRequest) => {
  if ("close" in message) {
    // Closed here, before the thread ends: a connection left to the thread's teardown is not safe.
    db.close();
    port.postMessage({ closed: true } satisfies ReaderReply);
    port.close();
    return;
  }
  port.postMessage({ replies: message.reads.map(answer) } satisfies ReaderReply);
});

/** One read, in its own read transaction (its own snapshot), whatever the others in its message do. */
function answer({ id, slot, name, args }: ReadRequest): ReadReply {
  try {
    const read = reads[name] as (...values: unknown[]) => unknown;
    begin.run();
    let value: unknown;
    try {
      // The snapshot is taken here (a read of the file): the one step that can wait for a lock.
      watched(() => reads.readable());
      value = read.apply(reads, args);
    } finally {
      // A failed read may have ended its transaction already (SQLite rolls back on some errors).
      if (db.inTransaction) end.run();
    }
    return { id, slot, value };
  } catch (error) {
    const mapped = mapSqliteError(error);
    return { id, slot, error: { message: mapped.message, unavailable: mapped instanceof StorageUnavailableError } };
  }
}
