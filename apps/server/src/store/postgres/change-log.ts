import { CHANGE_BOUNDS_SQL, changeFromRow, changesAfterSql, pruneChangesSql, type ChangeRow } from "../change-rows.js";
import type { ChangeBounds, ChangeEntry, ChangeLog } from "../storage.js";
import type { PostgresDatabase } from "./database.js";

const CHANGES_AFTER_SQL = changesAfterSql("$1::bigint", "$2");
const PRUNE_SQL = pruneChangesSql("$1::bigint", "$2");

/**
 * The change log in PostgreSQL, written by the group commit's batches (group-commit.ts says why
 * positions follow commit order). A read is one statement: one snapshot, in which the visible
 * positions are every position up to some point.
 */
export class PostgresChangeLog implements ChangeLog {
  constructor(private readonly db: PostgresDatabase) {}

  async after(cursor: bigint, limit: number): Promise<ChangeEntry[]> {
    const result = await this.db.run("read changes", (pool) =>
      pool.query<ChangeRow>(CHANGES_AFTER_SQL, [cursor.toString(), limit]),
    );
    return result.rows.map(changeFromRow);
  }

  async bounds(): Promise<ChangeBounds> {
    const result = await this.db.run("read change bounds", (pool) =>
      pool.query<{ first: string | null; last: string }>(CHANGE_BOUNDS_SQL),
    );
    const row = result.rows[0]!;
    return { first: row.first === null ? undefined : BigInt(row.first), last: BigInt(row.last) };
  }

  async prune(before: number, limit: number): Promise<number> {
    const result = await this.db.write("prune changes", (client) => client.query(PRUNE_SQL, [before, limit]));
    return result.rowCount ?? 0;
  }
}
