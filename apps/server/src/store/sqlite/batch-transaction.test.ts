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

describe("a batch whose change fails with its event", () => {
  async function batchWithEndpoint(): Promise<{ db: Database; batch: BatchTransaction }> {
    const { db, batch } = await freshBatch();
    const events = ["plant.created", "plant.deleted"] as const;
    batch.run([["webhook", { kind: "add-endpoint", url: "http://127.0.0.1:9/x", events: [...events], secret }]]);
    return { db, batch };
  }

  const ops: WriteOp[] = [
    ["create", 1n, "Fern", null],
    ["create", 2n, "Poison", null],
    ["create", 3n, "Moss", "green"],
    ["delete", 1n],
  ];

  // The failure comes after the plant's row was written (its delivery is refused), or before it.
  for (const table of ["webhook_deliveries", "plants"]) {
    it(`keeps neither of its rows, and its batch-mates commit (refused by ${table})`, async () => {
      const { db, batch } = await batchWithEndpoint();
      const refused = table === "plants" ? "NEW.name = 'Poison'" : `NEW.body LIKE '%"Poison"%'`;
      db.exec(
        `CREATE TRIGGER refuse BEFORE INSERT ON ${table} WHEN ${refused} BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );

      const outcome = batch.run(ops);

      expect(outcome.results.map((result) => result.kind)).toEqual(["created", "failed", "created", "deleted"]);
      expect(outcome.deliveries).toBe(3);
      expect(db.prepare("SELECT id FROM plants ORDER BY id").pluck().all()).toEqual([3]);
      const bodies = db.prepare("SELECT type, body FROM webhook_deliveries ORDER BY id").all() as Array<{
        type: string;
        body: string;
      }>;
      expect(
        bodies.map(({ type, body }) => [type, (JSON.parse(body) as { data: { name: string } }).data.name]),
      ).toEqual([
        ["plant.created", "Fern"],
        ["plant.created", "Moss"],
        ["plant.deleted", "Fern"],
      ]);
    });
  }
});

describe("how a batch is committed", () => {
  it("waits for its fsync whenever it changes anything but the webhook worker's own records", async () => {
    const { db, batch } = await freshBatch();
    const synchronous = () => db.pragma("synchronous", { simple: true }); // 2 FULL, 1 NORMAL
    const prune: WriteOp = ["webhook", { kind: "prune", before: 0, limit: 10 }];
    const settle: WriteOp = [
      "webhook",
      { kind: "settle", delivery: 1, owner: "me", result: { kind: "delivered", status: 204 } },
    ];
    const addEndpoint: WriteOp = [
      "webhook",
      { kind: "add-endpoint", url: "http://127.0.0.1:9/x", events: ["plant.created"], secret },
    ];

    expect(synchronous()).toBe(2);
    const cases: Array<[WriteOp[], number]> = [
      [[prune, settle], 1],
      [[["create", 1n, "Fern", null]], 2],
      [[settle], 1],
      [[settle, ["create", 2n, "Moss", null], prune], 2],
      [[prune], 1],
      [[["delete", 1n]], 2],
      [[settle], 1],
      [[addEndpoint], 2],
      [[prune], 1],
      [[["webhook", { kind: "redeliver", delivery: 1 }]], 2],
    ];
    for (const [ops, expected] of cases) {
      batch.run(ops);
      // The batch's kinds ride along, so a failure names the batch that left the wrong setting.
      const kinds = ops.map((op) => (op[0] === "webhook" ? op[1].kind : op[0]));
      expect({ kinds, synchronous: synchronous() }).toEqual({ kinds, synchronous: expected });
    }
  });
});
