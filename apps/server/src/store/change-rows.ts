import { isWebhookEventType } from "@plantstore/contract";
import type { ChangeEntry } from "./storage.js";

/** A plant_changes row as both databases return it (positions as bigint: safeIntegers, int8). */
export interface ChangeRow {
  position: bigint | string;
  type: string;
  body: string;
}

export function changeFromRow(row: ChangeRow): ChangeEntry {
  if (!isWebhookEventType(row.type)) throw new Error(`unknown change type ${row.type}`);
  return { position: BigInt(row.position), type: row.type, body: row.body };
}

/** The changes after a cursor, in position (commit) order: a range of the primary key. */
export const changesAfterSql = (cursor: string, limit: string) =>
  `SELECT position, type, body FROM plant_changes WHERE position > ${cursor} ORDER BY position LIMIT ${limit}`;

/** The oldest position kept (null: none) and the newest ever given (0: none yet), in one read. */
export const CHANGE_BOUNDS_SQL =
  "SELECT (SELECT min(position) FROM plant_changes) AS first, (SELECT position FROM plant_change_head) AS last";

/**
 * Deletes the oldest changes committed before a time, at most `limit`: the first `limit` rows by
 * position, up to the first one still young enough (so that what is kept is always every position
 * above a point, never a log with holes). Its cost is the `limit` rows of the primary key's start,
 * however many rows are kept: no index on time, no scan.
 */
export const pruneChangesSql = (before: string, limit: string) => `
  WITH oldest AS (SELECT position, created_at FROM plant_changes ORDER BY position LIMIT ${limit}),
       young AS (SELECT min(position) AS position FROM oldest WHERE created_at >= ${before})
  DELETE FROM plant_changes
  WHERE position IN (SELECT position FROM oldest WHERE position < coalesce((SELECT position FROM young), 9223372036854775807))`;
