import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BatchTransaction, type WriteOp } from "./batch-transaction.js";
import { openConnection } from "./connection.js";
import { applyMigrations } from "./migrations.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real SQLite file with the schema, and the writer's transaction on it (both removed after the test). */
async function freshBatch(): Promise<{ db: Database; batch: BatchTransaction }> {
  const dir = await mkdtemp(join(tmpdir(), "plantstore-batch-"));
  const db = openConnection(join(dir, "plants.db"));
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    async () => db.close(),
  );
  applyMigrations(db);
  return { db, batch: new BatchTransaction(db) };
}

/** A fresh batch with `count` endpoints (ids 1, 2, …), each subscribed to both events. */
async function batchWithEndpoints(count: number): Promise<{ db: Database; batch: BatchTransaction }> {
  const { db, batch } = await freshBatch();
  for (let n = 1; n <= count; n++) {
    const add: WriteOp = {
      kind: "webhook",
      write: {
        kind: "add-endpoint",
        url: `http://127.0.0.1:9/${n}`,
        events: ["plant.created", "plant.deleted"],
        secret,
      },
    };
    batch.run([add]);
  }
  return { db, batch };
}

describe("a batch whose change fails", () => {
  const ops: WriteOp[] = [
    { kind: "create", id: 1n, name: "Fern", tag: null },
    { kind: "create", id: 2n, name: "Poison", tag: null },
    { kind: "create", id: 3n, name: "Moss", tag: "green" },
    { kind: "delete", id: 1n },
  ];
  const refuse = (db: Database, table: string, when: string) =>
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'refused'); END`);

  it("has no event for it, and its batch-mates commit with theirs", async () => {
    const { db, batch } = await batchWithEndpoints(1);
    refuse(db, "plants", "NEW.name = 'Poison'");

    const outcome = batch.run(ops);

    expect(outcome.results.map((result) => result.kind)).toEqual(["create", "failed", "create", "delete"]);
    expect(outcome.deliveries).toBe(3);
    expect(db.prepare("SELECT id FROM plants ORDER BY id").pluck().all()).toEqual([3]);
    const bodies = db.prepare("SELECT type, body FROM webhook_deliveries ORDER BY id").all() as Array<{
      type: string;
      body: string;
    }>;
    expect(bodies.map(({ type, body }) => [type, (JSON.parse(body) as { data: { name: string } }).data.name])).toEqual([
      ["plant.created", "Fern"],
      ["plant.created", "Moss"],
      ["plant.deleted", "Fern"],
    ]);
  });

  // A change has no savepoint of its own: when its event cannot be written, the batch fails whole,
  // and no change of it stays without its event.
  it("fails with its batch-mates when their events cannot be written", async () => {
    const { db, batch } = await batchWithEndpoints(1);
    refuse(db, "webhook_deliveries", "NEW.body LIKE '%Moss%'");

    const outcome = batch.run(ops);

    expect(outcome.results.map((result) => result.kind)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(outcome.deliveries).toBe(0);
    expect(db.prepare("SELECT count(*) FROM plants").pluck().get()).toBe(0);
  });
});

describe("a batch's events", () => {
  const create = (id: number): WriteOp => ({ kind: "create", id: BigInt(id), name: `Plant ${id}`, tag: null });
  /** Each delivery's endpoint, state and plant, in the order written. */
  const deliveries = (db: Database) =>
    db
      .prepare("SELECT endpoint, state, json_extract(body, '$.data.id') AS plant FROM webhook_deliveries ORDER BY id")
      .all();

  // An endpoint change and creates can share a batch: the creates after it must neither fail nor
  // write deliveries to an endpoint that is gone, and those before it go with the endpoint.
  it("follow an endpoint removed or added within the batch", async () => {
    const { db, batch } = await batchWithEndpoints(2);

    const added: WriteOp = {
      kind: "webhook",
      write: { kind: "add-endpoint", url: "http://127.0.0.1:9/added", events: ["plant.created"], secret },
    };

    const outcome = batch.run([
      create(1),
      { kind: "webhook", write: { kind: "remove-endpoint", endpoint: 2 } },
      create(2),
      added,
      create(3),
    ]);

    expect(outcome.results.map((result) => result.kind)).toEqual(["create", "webhook", "create", "webhook", "create"]);
    expect(outcome.deliveries).toBe(5); // recorded: two for plant 1 (one went with its endpoint), one, two
    expect(deliveries(db)).toEqual([
      { endpoint: 1, state: "pending", plant: 1 },
      { endpoint: 1, state: "pending", plant: 2 },
      { endpoint: 1, state: "pending", plant: 3 },
      { endpoint: 3, state: "pending", plant: 3 },
    ]);
  });

  it("skip an endpoint disabled (410 Gone) earlier in the batch", async () => {
    const { db, batch } = await batchWithEndpoints(2);
    batch.run([create(1)]);
    const claim = batch.run([
      {
        kind: "webhook",
        write: {
          kind: "claim",
          claim: { owner: "me", limit: 10, perEndpoint: 10, leaseMs: 60_000, busy: [], holding: [] },
        },
      },
    ]).results[0] as { kind: "webhook"; value: Array<{ delivery: number; endpoint: number }> };
    const toSecond = claim.value.find((delivery) => delivery.endpoint === 2)!;
    const gone: WriteOp = {
      kind: "webhook",
      write: {
        kind: "settle",
        delivery: toSecond.delivery,
        owner: "me",
        result: { kind: "endpoint-gone", status: 410 },
      },
    };

    const outcome = batch.run([create(2), gone, create(3)]);

    expect(outcome.deliveries).toBe(3);
    expect(deliveries(db)).toEqual([
      { endpoint: 1, state: "pending", plant: 1 },
      { endpoint: 2, state: "failed", plant: 1 },
      { endpoint: 1, state: "pending", plant: 2 },
      { endpoint: 2, state: "failed", plant: 2 }, // recorded before the 410, failed with the endpoint
      { endpoint: 1, state: "pending", plant: 3 },
    ]);
  });
});

describe("how a batch is committed", () => {
  it("waits for its fsync whenever it changes anything but the webhook worker's own records", async () => {
    const { db, batch } = await freshBatch();
    const synchronous = () => db.pragma("synchronous", { simple: true }); // 2 FULL, 1 NORMAL
    const prune: WriteOp = { kind: "webhook", write: { kind: "prune", before: 0, limit: 10 } };
    const settle: WriteOp = {
      kind: "webhook",
      write: { kind: "settle", delivery: 1, owner: "me", result: { kind: "delivered", status: 204 } },
    };
    const addEndpoint: WriteOp = {
      kind: "webhook",
      write: { kind: "add-endpoint", url: "http://127.0.0.1:9/x", events: ["plant.created"], secret },
    };

    expect(synchronous()).toBe(2);
    const cases: Array<[WriteOp[], number]> = [
      [[prune, settle], 1],
      [[{ kind: "create", id: 1n, name: "Fern", tag: null }], 2],
      [[settle], 1],
      [[settle, { kind: "create", id: 2n, name: "Moss", tag: null }, prune], 2],
      [[prune], 1],
      [[{ kind: "delete", id: 1n }], 2],
      [[settle], 1],
      [[addEndpoint], 2],
      [[prune], 1],
      [[{ kind: "webhook", write: { kind: "redeliver", delivery: 1 } }], 2],
    ];
    for (const [ops, expected] of cases) {
      batch.run(ops);
      // The batch's kinds ride along, so a failure names the batch that left the wrong setting.
      const kinds = ops.map((op) => (op.kind === "webhook" ? op.write.kind : op.kind));
      expect({ kinds, synchronous: synchronous() }).toEqual({ kinds, synchronous: expected });
    }
  });
});
