import type { Database, Statement } from "better-sqlite3";
import { decideDelete, decideUpdate, plantFromRow } from "../plant-row.js";
import type { WebhookEventType } from "@plantstore/contract";
import type { StoredPlant, UpdateDecision, VersionCondition } from "../storage.js";
import { mapSqliteError } from "./errors.js";
import { ChangeWrites } from "./change-writes.js";
import { EventNotWritten, WebhookWrites, type WebhookWrite } from "./webhook-writes.js";

/** A plant's stored name and tag (an absent tag is null), as a result carries it back. */
export interface PlantFields {
  name: string;
  tag: string | null;
}

/**
 * One write as it crosses to the writer, tagged with its kind: a create (exact id, name, tag or
 * null), an edit and a delete (each with its If-Match condition, if any), or a webhook write
 * (claims, results, endpoint changes: SQLite has one writer, and it is this thread).
 */
export type WriteOp =
  | { kind: "create"; id: bigint; name: string; tag: string | null }
  | { kind: "update"; id: bigint; name: string; tag: string | null; ifMatch?: VersionCondition }
  | { kind: "delete"; id: bigint; ifMatch?: VersionCondition }
  | { kind: "webhook"; write: WebhookWrite }
  /** The change log's retention: up to `limit` of the oldest changes committed before `before` (epoch ms). */
  | { kind: "prune-changes"; before: number; limit: number };

/** What one write did, tagged with the kind of the write it answers; or how it failed, whatever its kind. */
export type WriteResult =
  /** `existing` is the stored plant when the id was taken (nothing written), null when this write inserted it. */
  | { kind: "create"; existing: PlantFields | null }
  /** What the edit decided (decideUpdate); only "updated" wrote. */
  | { kind: "update"; decision: UpdateDecision["kind"] }
  /** `removed` is the plant the delete removed, or null and why nothing was removed. */
  | { kind: "delete"; removed: PlantFields }
  | { kind: "delete"; removed: null; refused: "not-found" | "precondition-failed" }
  /** What WebhookWrites.run answered. */
  | { kind: "webhook"; value: unknown }
  | { kind: "prune-changes"; pruned: number }
  | { kind: "failed"; unavailable: boolean; message: string };

/** The result of a write of this kind when it did not fail. */
export type ResultOf<Kind extends WriteOp["kind"]> = Extract<WriteResult, { kind: Kind }>;

/**
 * The webhook worker's own records: a claim's lease, an attempt's result, pruning. Losing one of
 * these to a power failure (never to a crash of the process: the OS holds what was written) only
 * means that an attempt is made again, which at-least-once delivery allows; so a batch of nothing
 * else is committed without waiting for its fsync (see BatchTransaction.run).
 */
const BOOKKEEPING: ReadonlySet<WebhookWrite["kind"]> = new Set(["claim", "settle", "prune"]);

function isBookkeeping(op: WriteOp): boolean {
  // Pruning the change log is bookkeeping too: a prune lost to a power failure is made again.
  return op.kind === "prune-changes" || (op.kind === "webhook" && BOOKKEEPING.has(op.write.kind));
}

export interface BatchOutcome {
  results: WriteResult[];
  /** Webhook deliveries the batch's plant changes wrote (in the same commit). */
  deliveries: number;
  /** Entries the batch wrote to the change log (one per plant change). */
  changes: number;
}

/**
 * Writes a batch in one transaction with one commit (group commit), in arrival order. A create is
 * `INSERT … ON CONFLICT (id) DO NOTHING`, and a row that was not inserted is read back in the same
 * transaction, so replay/conflict is decided by the database; a delete returns the row it removed.
 * The event of a plant change that endpoints subscribe to is written in the same transaction, one
 * delivery row per endpoint: each change and its event, both or neither. A write that fails is
 * reported alone (a change is one statement, and its event is written only once it succeeded); its
 * batch-mates still commit. Only an event that cannot be written fails the whole batch
 * (EventNotWritten). Runs wherever the connection lives (the writer thread).
 */
export class BatchTransaction {
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackToSavepoint: Statement;
  private readonly insert: Statement<[bigint, string, string | null]>;
  private readonly select: Statement<[bigint], { name: string; tag: string | null }>;
  private readonly change: Statement<[string, string | null, bigint]>;
  private readonly remove: Statement<[bigint], { name: string; tag: string | null }>;
  private readonly webhooks: WebhookWrites;
  private readonly changes: ChangeWrites;
  /** The connection's `synchronous` setting (FULL, as openConnection sets it, unless a batch changed it). */
  private fullSync = true;

  constructor(private readonly db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT write");
    this.release = db.prepare("RELEASE write");
    this.rollbackToSavepoint = db.prepare("ROLLBACK TO write");
    this.insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
    this.select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
    this.change = db.prepare("UPDATE plants SET name = ?, tag = ? WHERE id = ?");
    this.remove = db.prepare("DELETE FROM plants WHERE id = ? RETURNING name, tag");
    this.webhooks = new WebhookWrites(db);
    this.changes = new ChangeWrites(db);
  }

  run(ops: readonly WriteOp[]): BatchOutcome {
    this.syncEveryCommit(!ops.every(isBookkeeping));
    const now = Date.now();
    const results: WriteResult[] = [];
    let deliveries = 0;
    try {
      this.begin.run();
      this.webhooks.beginBatch();
      this.changes.beginBatch();
      for (const op of ops) {
        const outcome = this.runOne(op, now);
        results.push(outcome.result);
        deliveries += outcome.events;
      }
      const changes = this.changes.endBatch();
      this.commit.run(); // with synchronous=FULL (every batch that changes plants): on disk when this returns
      return { results, deliveries, changes };
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      const failure = failed(error);
      return { results: ops.map(() => failure), deliveries: 0, changes: 0 };
    }
  }

  /**
   * A batch with anything a caller is answered about (a plant change, an endpoint change, a
   * re-send) commits with synchronous=FULL: on disk when the commit returns. A batch of webhook
   * bookkeeping alone commits with NORMAL: written to the WAL, synced by the next FULL commit or
   * checkpoint. Draining a backlog is mostly such batches, and their fsync cost ~70 µs of CPU and
   * ~300 µs of waiting each. Plants are only ever changed by FULL commits, so what the readers see of
   * them is still on disk (plant-repository.ts relies on it).
   */
  private syncEveryCommit(full: boolean): void {
    if (full === this.fullSync) return;
    // Not a prepared statement: SQLite applies this pragma when it compiles it, not when it runs.
    this.db.pragma(full ? "synchronous = FULL" : "synchronous = NORMAL");
    this.fullSync = full;
  }

  private runOne(op: WriteOp, now: number): Written {
    // A write that fails fails alone: a change is one statement, atomic by itself, and its event is
    // written only after it succeeded; a webhook write runs under a savepoint. A change whose event
    // could not be written is in the transaction already: the whole batch fails (EventNotWritten).
    try {
      switch (op.kind) {
        case "create":
          return this.create(op, now);
        case "update":
          return this.update(op, now);
        case "delete":
          return this.delete(op, now);
        case "webhook":
          return this.webhook(op.write, now);
        case "prune-changes":
          return {
            result: { kind: "prune-changes", pruned: this.changes.pruneBefore(op.before, op.limit) },
            events: 0,
          };
      }
    } catch (error) {
      if (error instanceof EventNotWritten) throw error.cause;
      return { result: failed(error), events: 0 };
    }
  }

  /**
   * A plant change that succeeded: its entry in the change log, then its event's deliveries, in the
   * change's transaction; returns how many deliveries. Throws EventNotWritten when it cannot: see there.
   */
  private record(type: WebhookEventType, plant: StoredPlant, now: number): number {
    try {
      return this.webhooks.recordEvent(type, this.changes.record(type, plant, now), now);
    } catch (error) {
      throw new EventNotWritten(error);
    }
  }

  /** A webhook write may be several statements (they are rare): what it changed stays only if it returns. */
  private webhook(write: WebhookWrite, now: number): Written {
    this.savepoint.run();
    try {
      const value = this.webhooks.run(write, now);
      this.release.run();
      return { result: { kind: "webhook", value }, events: 0 };
    } catch (error) {
      this.rollbackToSavepoint.run();
      this.release.run();
      throw error;
    }
  }

  private create({ id, name, tag }: Extract<WriteOp, { kind: "create" }>, now: number): Written {
    if (this.insert.run(id, name, tag).changes === 1) {
      const events = this.record("plant.created", tag === null ? { id, name } : { id, name, tag }, now);
      return { result: { kind: "create", existing: null }, events };
    }
    const existing = this.select.get(id);
    if (existing === undefined) throw new Error("row vanished");
    return { result: { kind: "create", existing }, events: 0 };
  }

  /**
   * An edit: the row is read and decided on (condition, then whether anything changes) and written
   * in the same transaction, which this thread alone writes: no other write comes in between.
   */
  private update({ id, name, tag, ifMatch }: Extract<WriteOp, { kind: "update" }>, now: number): Written {
    const row = this.select.get(id);
    const current = row === undefined ? undefined : plantFromRow({ id, ...row });
    const decision = decideUpdate(current, plantFromRow({ id, name, tag }), ifMatch);
    if (decision.kind !== "updated") return { result: { kind: "update", decision: decision.kind }, events: 0 };
    this.change.run(name, tag, id);
    const events = this.record("plant.updated", decision.plant, now);
    return { result: { kind: "update", decision: "updated" }, events };
  }

  /** A delete: one statement, unless a condition must be checked on the row first (in the same transaction). */
  private delete({ id, ifMatch }: Extract<WriteOp, { kind: "delete" }>, now: number): Written {
    if (ifMatch !== undefined) {
      const row = this.select.get(id);
      const decision = decideDelete(row === undefined ? undefined : plantFromRow({ id, ...row }), ifMatch);
      if (decision.kind !== "deleted") {
        return { result: { kind: "delete", removed: null, refused: decision.kind }, events: 0 };
      }
    }
    const removed = this.remove.get(id);
    if (removed === undefined) return { result: { kind: "delete", removed: null, refused: "not-found" }, events: 0 };
    const events = this.record("plant.deleted", plantFromRow({ id, ...removed }), now);
    return { result: { kind: "delete", removed }, events };
  }
}

/** A write's result, and how many webhook deliveries it wrote. */
interface Written {
  result: WriteResult;
  events: number;
}

function failed(error: unknown): WriteResult {
  const mapped = mapSqliteError(error);
  return { kind: "failed", unavailable: mapped.name === "StorageUnavailableError", message: mapped.message };
}

/*
 * Batches cross to the writer thread as one JSON string each way: a string is copied in one piece,
 * where structured-cloning an array of objects (with bigints) walks every value, and that walk was
 * the largest single cost of a create on the event loop's thread. Plant ids travel as decimal text:
 * an encoded op is its op with the id as a string.
 */

type EncodedOp =
  | { kind: "create"; id: string; name: string; tag: string | null }
  | { kind: "update"; id: string; name: string; tag: string | null; ifMatch?: VersionCondition }
  | { kind: "delete"; id: string; ifMatch?: VersionCondition }
  | { kind: "webhook"; write: WebhookWrite }
  | { kind: "prune-changes"; before: number; limit: number };

export function encodeOps(ops: readonly WriteOp[]): string {
  return JSON.stringify(ops.map(encodeOp));
}

function encodeOp(op: WriteOp): EncodedOp {
  switch (op.kind) {
    case "create":
      return { kind: "create", id: op.id.toString(), name: op.name, tag: op.tag };
    case "update":
      return { ...op, id: op.id.toString() };
    case "delete":
      return { ...op, id: op.id.toString() };
    case "webhook":
    case "prune-changes":
      return op;
  }
}

export function decodeOps(text: string): WriteOp[] {
  // Written by encodeOps on the other side of the thread boundary.
  const encoded: EncodedOp[] = JSON.parse(text);
  return encoded.map(decodeOp);
}

function decodeOp(op: EncodedOp): WriteOp {
  switch (op.kind) {
    case "create":
      return { kind: "create", id: BigInt(op.id), name: op.name, tag: op.tag };
    case "update":
      return { ...op, id: BigInt(op.id) };
    case "delete":
      return { ...op, id: BigInt(op.id) };
    case "webhook":
    case "prune-changes":
      return op;
  }
}

/** The results carry no bigints: JSON as it is. */
export function encodeOutcome(outcome: BatchOutcome): string {
  return JSON.stringify(outcome);
}

export function decodeOutcome(text: string): BatchOutcome {
  // Written by encodeOutcome on the other side of the thread boundary.
  const outcome: BatchOutcome = JSON.parse(text);
  return outcome;
}
