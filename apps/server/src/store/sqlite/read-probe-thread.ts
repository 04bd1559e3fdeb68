/**
 * The read probe: started when reads on the event loop's thread met a lock (see loop-reads.ts). It
 * tries a read on its own connection until one succeeds, then says so and ends. Waiting here, off
 * the event loop, is what lets the server answer 503 at once meanwhile instead of stalling.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

/** How long between two tries while the database stays locked. */
const RETRY_MS = 100;

const db = new Database((workerData as { path: string }).path);

function attempt(): void {
  try {
    db.prepare("SELECT count(*) AS n FROM sqlite_schema").get();
  } catch {
    setTimeout(attempt, RETRY_MS);
    return;
  }
  db.close();
  parentPort!.postMessage("readable");
}

attempt();
