import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BatchTransaction, type WriteOp } from "./batch-transaction.js";
import { openConnection } from "./connection.js";
import { applyMigrations } from "./migrations.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("a batch whose change fails with its event", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function batchWithEndpoint(): Promise<{ db: Database; batch: BatchTransaction }> {
    const dir = await mkdtemp(join(tmpdir(), "plantstore-batch-"));
    const db = openConnection(join(dir, "plants.db"));
    cleanups.push(
      () => rm(dir, { recursive: true, force: true }),
      async () => db.close(),
    );
    applyMigrations(db);
    const batch = new BatchTransaction(db);
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
