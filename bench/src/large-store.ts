// The large store: a SQLite file with millions of plants, written straight into the server's own
// schema while the server is stopped (through HTTP, 10 million creates would take half an hour).
import Database from "better-sqlite3";
import { LARGE_STORE_FIRST_ID } from "./scenarios.js";

const CHUNK = 100_000;

/** Adds `count` plants, ids LARGE_STORE_FIRST_ID and up in order, every other one tagged. */
export function fillLargeStore(path: string, count: number): void {
  const db = new Database(path);
  try {
    // Bulk load: no journal, no fsync per chunk; the server reopens it in WAL with synchronous=FULL.
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    const insert = db.prepare<[bigint, string, string | null]>("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)");
    const chunk = db.transaction((from: number, to: number) => {
      for (let n = from; n < to; n++) {
        insert.run(BigInt(LARGE_STORE_FIRST_ID + n), `Plant ${n}`, n % 2 === 0 ? "indoor" : null);
      }
    });
    for (let from = 0; from < count; from += CHUNK) chunk(from, Math.min(count, from + CHUNK));
  } finally {
    db.close();
  }
}
