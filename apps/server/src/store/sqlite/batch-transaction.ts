import type { Database, Statement } from "better-sqlite3";
import { mapSqliteError } from "./errors.js";

/** One write as it crosses to the writer: a create (exact id, name, tag or null) or a delete. */
export type WriteOp = [kind: "create", id: bigint, name: string, tag: string | null] | [kind: "delete", id: bigint];

/** What happened to one write; the stored row comes back when a create found one or a delete removed one. */
export type WriteResult =
  | { kind: "created" }
  | { kind: "existing"; name: string; tag: string | null }
  | { kind: "deleted"; name: string; tag: string | null }
  | { kind: "missing" }
  | { kind: "failed"; unavailable: boolean; message: string };

/**
 * Writes a batch in one transaction with one commit (group commit), in arrival order. A create is
 * `INSERT … ON CONFLICT (id) DO NOTHING`, and a row that was not inserted is read back in the same
 * transaction, so replay/conflict is decided by the database; a delete returns the row it removed.
 * A write that fails is reported alone; its batch-mates still commit. Runs wherever the
 * connection lives (the writer thread).
 */
export class BatchTransaction {
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly insert: Statement<[bigint, string, string | null]>;
  private readonly select: Statement<[bigint], { name: string; tag: string | null }>;
  private readonly remove: Statement<[bigint], { name: string; tag: string | null }>;

  constructor(private readonly db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
    this.select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
    this.remove = db.prepare("DELETE FROM plants WHERE id = ? RETURNING name, tag");
  }

  run(ops: readonly WriteOp[]): WriteResult[] {
    try {
      this.begin.run();
      const results = ops.map((op) => this.runOne(op));
      this.commit.run(); // with synchronous=FULL: on disk when this returns
      return results;
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      const failure = failed(error);
      return ops.map(() => failure);
    }
  }

  private runOne(op: WriteOp): WriteResult {
    try {
      if (op[0] === "delete") {
        const removed = this.remove.get(op[1]);
        return removed === undefined ? { kind: "missing" } : { kind: "deleted", name: removed.name, tag: removed.tag };
      }
      const [, id, name, tag] = op;
      if (this.insert.run(id, name, tag).changes === 1) return { kind: "created" };
      const existing = this.select.get(id);
      if (existing === undefined) return { kind: "failed", unavailable: false, message: "row vanished" };
      return { kind: "existing", name: existing.name, tag: existing.tag };
    } catch (error) {
      return failed(error);
    }
  }
}

function failed(error: unknown): WriteResult {
  const mapped = mapSqliteError(error);
  return { kind: "failed", unavailable: mapped.name === "StorageUnavailableError", message: mapped.message };
}

/*
 * Batches cross to the writer thread as one JSON string each way: a string is copied in one piece,
 * where structured-cloning an array of arrays (with bigints) walks every value, and that walk was
 * the largest single cost of a create on the event loop's thread.
 */

export function encodeOps(ops: readonly WriteOp[]): string {
  return JSON.stringify(
    ops.map((op) => (op[0] === "create" ? ["create", op[1].toString(), op[2], op[3]] : ["delete", op[1].toString()])),
  );
}

export function decodeOps(text: string): WriteOp[] {
  return (JSON.parse(text) as Array<[string, string, string?, (string | null)?]>).map(([kind, id, name, tag]) =>
    kind === "delete" ? ["delete", BigInt(id)] : ["create", BigInt(id), name!, tag ?? null],
  );
}

export function encodeResults(results: readonly WriteResult[]): string {
  return JSON.stringify(results);
}

export function decodeResults(text: string): WriteResult[] {
  return JSON.parse(text) as WriteResult[];
}
