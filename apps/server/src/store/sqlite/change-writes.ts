import { eventWithSequence, webhookEventHead, type WebhookEventType } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { plantVersion } from "../plant-row.js";
import { pruneChangesSql } from "../change-rows.js";
import type { StoredPlant } from "../storage.js";

/**
 * The change log's statements on the writer thread. A batch takes its positions from
 * plant_change_head: read at its first change, counted up in memory, written back once before its
 * COMMIT (one row update per batch, not per change). The writer holds SQLite's write lock from
 * BEGIN IMMEDIATE to COMMIT, so batches take positions one after another, in commit order; a batch
 * that rolls back gives its positions back with it, so the log has no holes.
 */
export class ChangeWrites {
  private readonly readHead: Statement<[], { position: bigint }>;
  private readonly writeHead: Statement<[bigint]>;
  private readonly insert: Statement<[bigint, string, string, number, string]>;
  private readonly prune: Statement<[number, number]>;
  /** The last position taken in this batch (undefined: none taken yet). */
  private last: bigint | undefined;
  /** A batch's events share its time: formatted once (RFC 3339), not once per event. */
  private timestamp: { ms: number; text: string } | undefined;

  constructor(db: Database) {
    this.readHead = db.prepare<[], { position: bigint }>("SELECT position FROM plant_change_head").safeIntegers(true);
    this.writeHead = db.prepare("UPDATE plant_change_head SET position = ?");
    this.insert = db.prepare(
      "INSERT INTO plant_changes (position, type, version, created_at, body) VALUES (?, ?, ?, ?, ?)",
    );
    this.prune = db.prepare(pruneChangesSql("?", "?"));
  }

  /** Called at the start of every batch. */
  beginBatch(): void {
    this.last = undefined;
  }

  /** Writes a change at the next position; returns its event's body (with that position as its sequence). */
  record(type: WebhookEventType, plant: StoredPlant, now: number): string {
    this.last ??= this.readHead.get()!.position;
    const position = ++this.last;
    if (this.timestamp?.ms !== now) this.timestamp = { ms: now, text: new Date(now).toISOString() };
    const version = plantVersion(plant);
    const body = eventWithSequence(webhookEventHead(type, plant, this.timestamp.text, version), position);
    this.insert.run(position, type, version, now, body);
    return body;
  }

  /** Before COMMIT: the head moves to the batch's last position. Returns how many changes the batch wrote. */
  endBatch(): number {
    if (this.last === undefined) return 0;
    const before = this.readHead.get()!.position;
    this.writeHead.run(this.last);
    return Number(this.last - before);
  }

  pruneBefore(before: number, limit: number): number {
    return this.prune.run(before, limit).changes;
  }
}
