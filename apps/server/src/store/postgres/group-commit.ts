import type { NewPlant } from "@plantstore/contract";
import { decideDelete, decideExisting, decideUpdate, plantFromRow, plantVersion, type PlantRow } from "../plant-row.js";
import { EVENT_BODY_END, webhookEventHead, type WebhookEventType } from "@plantstore/contract";
import type {
  BatchObserver,
  CreateDecision,
  DeleteDecision,
  StoredPlant,
  UpdateDecision,
  VersionCondition,
} from "../storage.js";
import { newEventId } from "../webhook-rows.js";
import type { PostgresDatabase } from "./database.js";
import { StorageUnavailableError } from "../storage.js";
import type { Queryable } from "./transaction.js";

/** A write waiting for a batch slot, tagged with its kind. */
interface CreateWrite {
  kind: "create";
  plant: NewPlant;
  resolve: (decision: CreateDecision) => void;
  reject: (error: unknown) => void;
}
interface UpdateWrite {
  kind: "update";
  plant: StoredPlant;
  ifMatch: VersionCondition | undefined;
  resolve: (decision: UpdateDecision) => void;
  reject: (error: unknown) => void;
}
interface DeleteWrite {
  kind: "delete";
  id: bigint;
  ifMatch: VersionCondition | undefined;
  resolve: (decision: DeleteDecision) => void;
  reject: (error: unknown) => void;
}
type PendingWrite = CreateWrite | UpdateWrite | DeleteWrite;
/** A write decided on the row as it is (see changeAll): an edit, or a delete with a condition. */
type ChangeWrite = UpdateWrite | DeleteWrite;

/**
 * Writes that go together in one transaction: creates (one statement), unconditional deletes (one
 * statement), or changes decided on their locked rows (edits and conditional deletes).
 */
type Batch =
  | { kind: "create"; writes: CreateWrite[] }
  | { kind: "delete"; writes: DeleteWrite[] }
  | { kind: "change"; writes: ChangeWrite[] };

const isPlainDelete = (write: PendingWrite): write is DeleteWrite =>
  write.kind === "delete" && write.ifMatch === undefined;
const isChange = (write: PendingWrite): write is ChangeWrite =>
  write.kind === "update" || (write.kind === "delete" && write.ifMatch !== undefined);

/** Takes the longest run of writes of one batch kind at the head of the queue (at least one), up to MAX_BATCH. */
function takeBatch(queue: PendingWrite[]): Batch {
  const head = queue[0]!;
  switch (head.kind) {
    case "create":
      return { kind: "create", writes: takeRun(queue, (write) => write.kind === "create") };
    case "delete":
      return isPlainDelete(head)
        ? { kind: "delete", writes: takeRun(queue, isPlainDelete) }
        : { kind: "change", writes: takeRun(queue, isChange) };
    case "update":
      return { kind: "change", writes: takeRun(queue, isChange) };
  }
}

function takeRun<W extends PendingWrite>(queue: PendingWrite[], ofKind: (write: PendingWrite) => write is W): W[] {
  const run: W[] = [];
  for (const write of queue) {
    if (run.length === MAX_BATCH || !ofKind(write)) break;
    run.push(write);
  }
  queue.splice(0, run.length);
  return run;
}

/** The batch's writes, each as a batch of its own (to be tried alone). */
function oneByOne(batch: Batch): Batch[] {
  switch (batch.kind) {
    case "create":
      return batch.writes.map((write) => ({ kind: "create", writes: [write] }));
    case "delete":
      return batch.writes.map((write) => ({ kind: "delete", writes: [write] }));
    case "change":
      return batch.writes.map((write) => ({ kind: "change", writes: [write] }));
  }
}

/** How often a create is retried whose conflicting row was deleted before it could be read back. */
const VANISHED_ROW_RETRIES = 3;

/** Largest batch in one statement: bounds the statement size and the wait of its first request. */
const MAX_BATCH = 256;

/** The database's clock in epoch milliseconds, one value per statement (as the webhook tables keep time). */
export const NOW_MS = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

/**
 * The change log's part of a statement, after a CTE `events` (event_id, type, body_head, version,
 * ord: the batch's changes in the order made): each change takes the next position from
 * plant_change_head and is written to plant_changes with its event's body (its head, then the
 * position as its sequence); one delivery row per subscribed endpoint carries the same body.
 *
 * Why positions follow commit order: the UPDATE of the head row is the last lock the transaction
 * takes, and it holds it until its COMMIT. A concurrent batch on any instance waits at that UPDATE
 * until this one has committed (and is visible: PostgreSQL releases a transaction's locks only after
 * it became visible), then reads the head as this one left it. So a transaction with higher
 * positions always commits after every one with lower positions, and a reader that sees position n
 * sees everything below it. A rollback gives the positions back with the head's change: no holes.
 * The cost is one row update per batch, and batches of changes commit one after another.
 */
const LOG_CHANGES_SQL = `
  counter AS (
    UPDATE plant_change_head SET position = position + (SELECT count(*) FROM events)
    WHERE EXISTS (SELECT 1 FROM events)
    RETURNING position
  ),
  numbered AS (
    SELECT events.event_id, events.type, events.version, events.body_head,
           (SELECT position FROM counter) - (SELECT count(*) FROM events) + events.ord AS position
    FROM events
  ),
  logged AS (
    INSERT INTO plant_changes (position, type, version, created_at, body)
    SELECT position, type, version, ${NOW_MS}, body_head || position::text || '${EVENT_BODY_END}' FROM numbered
    RETURNING position, type, body
  ),
  deliveries AS (
    INSERT INTO webhook_deliveries (event_id, type, body, created_at, endpoint, next_attempt_at)
    SELECT numbered.event_id, logged.type, logged.body, ${NOW_MS}, endpoints.id, ${NOW_MS}
    FROM logged JOIN numbered USING (position)
    JOIN webhook_endpoints AS endpoints
      ON endpoints.disabled_at IS NULL AND ' ' || endpoints.events || ' ' LIKE '% ' || logged.type || ' %'
    ORDER BY logged.position, endpoints.id
    RETURNING 1
  )`;

/**
 * One statement for a whole batch: insert every id that does not exist yet (the first request
 * for an id within the batch wins, as if it had arrived first), return what was inserted, and
 * return the existing rows of the other ids for comparison. The unique index decides, as for a
 * single create. Each inserted plant's change (its event's body prepared with the input) goes to
 * the change log and to one delivery row per subscribed endpoint by the same statement, in the
 * batch's one transaction: it commits once for the whole batch, events included (the outbox).
 */
const CREATE_BATCH_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
      WITH ORDINALITY AS t(id, name, tag, event_id, body_head, version, ord)
  ),
  inserted AS (
    INSERT INTO plants (id, name, tag)
    SELECT DISTINCT ON (id) id, name, tag FROM input ORDER BY id, ord
    ON CONFLICT (id) DO NOTHING
    RETURNING id, name, tag
  ),
  created AS (
    SELECT DISTINCT ON (input.id) input.event_id, input.body_head, input.version, input.ord
    FROM inserted JOIN input USING (id)
    ORDER BY input.id, input.ord
  ),
  events AS (
    SELECT event_id, 'plant.created'::text AS type, body_head, version, row_number() OVER (ORDER BY ord) AS ord
    FROM created
  ),
  ${LOG_CHANGES_SQL}
  SELECT true AS created, id, name, tag, (SELECT count(*) FROM deliveries)::int AS deliveries FROM inserted
  UNION ALL
  SELECT false AS created, id, name, tag, 0 FROM plants
  WHERE id = ANY($1::bigint[]) AND id NOT IN (SELECT id FROM inserted)`;

/** The changes of a delete or change batch (in the order made): to the change log and the deliveries. */
const RECORD_EVENTS_SQL = `
  WITH events AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
      WITH ORDINALITY AS t(event_id, type, body_head, version, ord)
  ),
  ${LOG_CHANGES_SQL}
  SELECT count(*)::int AS deliveries FROM deliveries`;

/** The rows a change batch decides on, locked until its commit, in id order (so that batches never wait on each other in a cycle). */
const LOCK_ROWS_SQL = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE";

/** The new name and tag of each plant a change batch edited (its final state when edited twice). */
const UPDATE_ROWS_SQL = `
  UPDATE plants SET name = edited.name, tag = edited.tag
  FROM unnest($1::bigint[], $2::text[], $3::text[]) AS edited(id, name, tag)
  WHERE plants.id = edited.id`;

const FIND_MANY_SQL = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])";

/** Deletes a batch of ids in one statement (one transaction), returning the rows it removed. */
const DELETE_BATCH_SQL = "DELETE FROM plants WHERE id = ANY($1::bigint[]) RETURNING id, name, tag";

/**
 * Group commit for PostgreSQL. Writes that arrive while every batch slot is busy wait and go
 * together in the next statement (creates with creates, deletes with deletes, in arrival order):
 * one transaction, one WAL flush for all of them. Under light load a write goes alone at once, so
 * latency does not grow. Each promise resolves only after its batch committed
 * (synchronous_commit=on). If a batch fails for a reason other than storage being unavailable, its
 * writes are retried one by one, so that one bad row fails alone and never takes its batch-mates
 * with it; when storage is unavailable, or the commit's outcome is unknown, every write of the batch
 * gets that answer.
 */
export class GroupCommit {
  private queue: PendingWrite[] = [];
  private running = 0;

  constructor(
    private readonly db: PostgresDatabase,
    /** Batches in flight at once: fewer than the pool size leaves connections for other queries. */
    private readonly slots: number,
    private readonly observe: BatchObserver = () => {},
    private readonly onDeliveries: () => void = () => {},
    /** Told after every committed batch (it may have written changes): a hint to read the log now. */
    private readonly onChanges: () => void = () => {},
  ) {}

  create(plant: NewPlant): Promise<CreateDecision> {
    return this.enqueue<CreateDecision>((resolve, reject) => ({ kind: "create", plant, resolve, reject }));
  }

  update(plant: StoredPlant, ifMatch: VersionCondition | undefined): Promise<UpdateDecision> {
    return this.enqueue<UpdateDecision>((resolve, reject) => ({ kind: "update", plant, ifMatch, resolve, reject }));
  }

  delete(id: bigint, ifMatch: VersionCondition | undefined): Promise<DeleteDecision> {
    return this.enqueue<DeleteDecision>((resolve, reject) => ({ kind: "delete", id, ifMatch, resolve, reject }));
  }

  /** Queues a write for the next free batch slot; close() waits for it (admit). */
  private enqueue<Decision>(
    write: (resolve: (decision: Decision) => void, reject: (error: unknown) => void) => PendingWrite,
  ): Promise<Decision> {
    return this.db.admit(
      () =>
        new Promise<Decision>((resolve, reject) => {
          this.queue.push(write(resolve, reject));
          this.pump();
        }),
    );
  }

  private pump(): void {
    while (this.running < this.slots && this.queue.length > 0) {
      const batch = takeBatch(this.queue);
      this.running++;
      void this.send(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** Runs one batch statement and gives each write its decision; returns the webhook deliveries written. */
  private async write<Item extends { resolve(decision: Decision): void }, Decision>(
    items: Item[],
    operation: string,
    run: (client: Queryable, items: Item[]) => Promise<Written<Decision>>,
  ): Promise<number> {
    const { decisions, deliveries } = await this.db.transaction(operation, (client) => run(client, items));
    items.forEach((item, index) => item.resolve(decisions[index]!));
    return deliveries;
  }

  private async send(batch: Batch): Promise<void> {
    const started = performance.now();
    try {
      const deliveries = await this.sendOnce(batch);
      this.observe(batch.writes.length, (performance.now() - started) / 1000);
      if (deliveries > 0) this.onDeliveries();
      this.onChanges();
    } catch (error) {
      if (batch.writes.length === 1 || error instanceof StorageUnavailableError || !(error instanceof Error)) {
        for (const write of batch.writes) write.reject(error);
        return;
      }
      await Promise.all(oneByOne(batch).map((single) => this.send(single)));
    }
  }

  private sendOnce(batch: Batch): Promise<number> {
    switch (batch.kind) {
      case "create":
        return this.write(batch.writes, "create plants", (client, writes) =>
          createAll(
            client,
            writes.map((write) => write.plant),
          ),
        );
      case "delete":
        return this.write(batch.writes, "delete plants", (client, writes) =>
          deleteAll(
            client,
            writes.map((write) => write.id),
          ),
        );
      case "change": {
        const writes = batch.writes;
        return this.db
          .transaction("change plants", (client) => changeAll(client, writes))
          .then(({ settle, deliveries }) => {
            settle();
            return deliveries;
          });
      }
    }
  }
}

interface Written<T> {
  decisions: T[];
  /** Webhook deliveries the batch wrote. */
  deliveries: number;
}

async function createAll(client: Queryable, plants: NewPlant[]): Promise<Written<CreateDecision>> {
  const decisions: Array<CreateDecision | undefined> = plants.map(() => undefined);
  let deliveries = 0;
  let pending = plants.map((plant, index) => ({ plant, index }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > VANISHED_ROW_RETRIES) {
      throw new Error(`plant ${pending[0]!.plant.id} kept conflicting with rows deleted before they could be read`);
    }
    const settled = await createOnce(
      client,
      pending.map(({ plant }) => plant),
    );
    deliveries += settled.deliveries;
    pending.forEach(({ index }, position) => (decisions[index] = settled.decisions[position]));
    // A create that conflicted with a row deleted before it could be read back is tried again:
    // the id may be free now.
    pending = pending.filter(({ index }) => decisions[index] === undefined);
  }
  return { decisions: decisions as CreateDecision[], deliveries };
}

/** One statement for the batch; undefined for a create whose conflicting row vanished meanwhile. */
async function createOnce(client: Queryable, plants: NewPlant[]): Promise<Written<CreateDecision | undefined>> {
  const timestamp = new Date().toISOString();
  const versions = plants.map(plantVersion);
  const result = await client.query<PlantRow & { created: boolean; deliveries: number }>(CREATE_BATCH_SQL, [
    plants.map((plant) => plant.id.toString()),
    plants.map((plant) => plant.name),
    plants.map((plant) => plant.tag ?? null),
    plants.map(() => newEventId()),
    plants.map((plant, index) => webhookEventHead("plant.created", plant, timestamp, versions[index]!)),
    versions,
  ]);
  const inserted = new Map<bigint, StoredPlant>();
  const existing = new Map<bigint, StoredPlant>();
  for (const row of result.rows) (row.created ? inserted : existing).set(row.id, plantFromRow(row));
  const deliveries = result.rows.find((row) => row.created)?.deliveries ?? 0;

  // Ids neither inserted nor visible: another transaction inserted them after this statement's
  // snapshot (ON CONFLICT waited for its commit, then did nothing). A new statement sees them,
  // unless they were deleted in the meantime.
  const unseen = [...new Set(plants.map((plant) => plant.id))].filter((id) => !inserted.has(id) && !existing.has(id));
  if (unseen.length > 0) {
    const found = await client.query<PlantRow>(FIND_MANY_SQL, [unseen.map(String)]);
    for (const row of found.rows) existing.set(row.id, plantFromRow(row));
  }

  const claimed = new Set<bigint>();
  const decisions = plants.map((plant): CreateDecision | undefined => {
    const created = inserted.get(plant.id);
    if (created && !claimed.has(plant.id)) {
      // DISTINCT ON kept the first request for this id in the batch: that request created it.
      claimed.add(plant.id);
      return { kind: "created", plant: created };
    }
    const stored = created ?? existing.get(plant.id);
    return stored === undefined ? undefined : decideExisting(plant, stored);
  });
  return { decisions, deliveries };
}

/** Deletes the batch, and writes the events of what it removed, in one transaction. */
async function deleteAll(client: Queryable, ids: bigint[]): Promise<Written<DeleteDecision>> {
  const timestamp = new Date().toISOString();
  const result = await client.query<PlantRow>(DELETE_BATCH_SQL, [ids.map(String)]);
  const removed = new Map(result.rows.map((row) => [row.id, plantFromRow(row)]));
  let deliveries = 0;
  if (removed.size > 0) {
    deliveries = await recordEvents(
      client,
      [...removed.values()].map((plant) => ({ type: "plant.deleted", plant })),
      timestamp,
    );
  }
  // Two deletes of one id in a batch: the first (in arrival order) deleted it, the second found nothing.
  const decisions = ids.map((id): DeleteDecision => {
    const plant = removed.get(id);
    if (plant === undefined) return { kind: "not-found" };
    removed.delete(id);
    return { kind: "deleted", plant };
  });
  return { decisions, deliveries };
}

/** Writes a batch's changes (in the order made) to the change log and as delivery rows; returns how many deliveries. */
async function recordEvents(
  client: Queryable,
  events: ReadonlyArray<{ type: WebhookEventType; plant: StoredPlant }>,
  timestamp: string,
): Promise<number> {
  const versions = events.map(({ plant }) => plantVersion(plant));
  const result = await client.query<{ deliveries: number }>(RECORD_EVENTS_SQL, [
    events.map(() => newEventId()),
    events.map(({ type }) => type),
    events.map(({ type, plant }, index) => webhookEventHead(type, plant, timestamp, versions[index]!)),
    versions,
  ]);
  return result.rows[0]?.deliveries ?? 0;
}

/**
 * Edits and conditional deletes, in the batch's transaction: the rows they name are locked (FOR
 * UPDATE, so that no other instance changes them before this commit), each write is decided in
 * arrival order on the row as the writes before it left it (decideUpdate, decideDelete: the
 * condition, then whether anything changes), and the final state of each changed row is written
 * with the events of every change. Of concurrent writes with the same If-Match, on any number of
 * instances, the first to lock the row wins and the others find it changed. The decisions are
 * given out (settle) only after the commit.
 */
async function changeAll(
  client: Queryable,
  writes: ChangeWrite[],
): Promise<{ settle: () => void; deliveries: number }> {
  const timestamp = new Date().toISOString();
  const idOf = (write: ChangeWrite) => (write.kind === "update" ? write.plant.id : write.id);
  const locked = await client.query<PlantRow>(LOCK_ROWS_SQL, [[...new Set(writes.map(idOf))].map(String)]);
  const plants = new Map(locked.rows.map((row) => [row.id, plantFromRow(row)]));
  const changed = new Set<bigint>();
  const events: Array<{ type: WebhookEventType; plant: StoredPlant }> = [];
  const settlements = writes.map((write) => {
    const id = idOf(write);
    switch (write.kind) {
      case "update": {
        const decision = decideUpdate(plants.get(id), write.plant, write.ifMatch);
        if (decision.kind === "updated") {
          plants.set(id, decision.plant);
          changed.add(id);
          events.push({ type: "plant.updated", plant: decision.plant });
        }
        return () => write.resolve(decision);
      }
      case "delete": {
        const decision = decideDelete(plants.get(id), write.ifMatch);
        if (decision.kind === "deleted") {
          plants.delete(id);
          changed.add(id);
          events.push({ type: "plant.deleted", plant: decision.plant });
        }
        return () => write.resolve(decision);
      }
    }
  });
  const edited = [...changed].flatMap((id) => plants.get(id) ?? []);
  const deleted = [...changed].filter((id) => !plants.has(id));
  if (deleted.length > 0) await client.query(DELETE_BATCH_SQL, [deleted.map(String)]);
  if (edited.length > 0) {
    await client.query(UPDATE_ROWS_SQL, [
      edited.map((plant) => plant.id.toString()),
      edited.map((plant) => plant.name),
      edited.map((plant) => plant.tag ?? null),
    ]);
  }
  const deliveries = events.length > 0 ? await recordEvents(client, events, timestamp) : 0;
  return { settle: () => settlements.forEach((settle) => settle()), deliveries };
}
