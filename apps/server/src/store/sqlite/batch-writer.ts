import type { Database, Statement } from "better-sqlite3";
import { mapSqliteError } from "./errors.js";

/** One create as it crosses to the writer: exact id, name, tag or null. */
export type CreateRow = [id: bigint, name: string, tag: string | null];

/** What happened to one row; `existing` is the stored row when it was not created. */
export type RowResult =
  | { kind: "created" }
  | { kind: "existing"; name: string; tag: string | null }
  | { kind: "failed"; unavailable: boolean; message: string };

/**
 * Writes a batch of creates in one transaction with one commit (group commit). Each row is
 * `INSERT … ON CONFLICT (id) DO NOTHING`, and a row that was not inserted is read back in the same
 * transaction, so replay/conflict is decided by the database. A row that fails is reported alone;
 * its batch-mates still commit. Runs wherever the connection lives (the writer thread).
 */
export class CreateBatchWriter {
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly insert: Statement<[bigint, string, string | null]>;
  private readonly select: Statement<[bigint], { name: string; tag: string | null }>;

  constructor(private readonly db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
    this.select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
  }

  write(rows: readonly CreateRow[]): RowResult[] {
    try {
      this.begin.run();
      const results = rows.map((row) => this.writeOne(row));
      this.commit.run(); // with synchronous=FULL: on disk when this returns
      return results;
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      const failure = failed(error);
      return rows.map(() => failure);
    }
  }

  private writeOne([id, name, tag]: CreateRow): RowResult {
    try {
      if (this.insert.run(id, name, tag).changes === 1) return { kind: "created" };
      const existing = this.select.get(id);
      if (existing === undefined) return { kind: "failed", unavailable: false, message: "row vanished" };
      return { kind: "existing", name: existing.name, tag: existing.tag };
    } catch (error) {
      return failed(error);
    }
  }
}

function failed(error: unknown): RowResult {
  const mapped = mapSqliteError(error);
  return { kind: "failed", unavailable: mapped.name === "StorageUnavailableError", message: mapped.message };
}

/*
 * Batches cross to the writer thread as one JSON string each way: a string is copied in one piece,
 * where structured-cloning an array of arrays (with bigints) walks every value, and that walk was
 * the largest single cost of a create on the event loop's thread.
 */

export function encodeRows(rows: readonly CreateRow[]): string {
  return JSON.stringify(rows.map(([id, name, tag]) => [id.toString(), name, tag]));
}

export function decodeRows(text: string): CreateRow[] {
  return (JSON.parse(text) as Array<[string, string, string | null]>).map(([id, name, tag]) => [BigInt(id), name, tag]);
}

export function encodeResults(results: readonly RowResult[]): string {
  return JSON.stringify(results);
}

export function decodeResults(text: string): RowResult[] {
  return JSON.parse(text) as RowResult[];
}
