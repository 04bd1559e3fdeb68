import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { pino } from "pino";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterEach, expect, it } from "vitest";
import { openConnection } from "./sqlite/connection.js";
import { applyMigrations as applySqliteMigrations } from "./sqlite/migrations.js";
import { PRUNE_SQL as SQLITE_PRUNE_SQL } from "./sqlite/webhook-writes.js";
import { openPostgresStorage } from "./postgres/storage.js";
import { PRUNE_SQL as POSTGRES_PRUNE_SQL } from "./postgres/webhook-repository.js";
import { createTestSchema, postgresTestTarget } from "../test-support/test-database.js";

/**
 * The prune runs every minute (on SQLite, on the writer thread every create waits for). It read
 * every delivery kept to find the few old enough to delete: 1 M delivered rows within retention made
 * each prune a full scan (573 ms on SQLite; a 2.1–2.4 s sequential scan on PostgreSQL). Its cost
 * must not grow with the rows kept: it must be a range of an index, from the oldest row on.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("prunes by an index range on SQLite, never a scan of the deliveries kept", async () => {
  const dir = await mkdtemp(join(tmpdir(), "plantstore-webhook-prune-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const db = openConnection(join(dir, "plants.db"));
  cleanups.push(async () => db.close());
  applySqliteMigrations(db);
  const plan = db
    .prepare(`EXPLAIN QUERY PLAN ${SQLITE_PRUNE_SQL}`)
    .all(0, 10_000)
    .map((step) => (step as { detail: string }).detail);
  expect(plan.filter((step) => step.startsWith("SCAN") || step.includes("TEMP B-TREE"))).toEqual([]);
  expect(plan).toContain(
    "SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_delivered_created (created_at<?)",
  );
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

const target = await postgresTestTarget();
describeWith(target, "the prune on PostgreSQL", (url) => {
  it("prunes by an index range, never a sequential scan of the deliveries kept (120,000 rows)", async () => {
    const schema = await createTestSchema(url);
    cleanups.push(() => schema.drop());
    const storage = await openPostgresStorage(schema.url, {
      poolMax: 2,
      connectionTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
      logger: pino({ level: "silent" }),
    });
    cleanups.push(() => storage.close());
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    cleanups.push(() => client.end());
    // Delivered events within retention (and some pending), and 20,000 delivered ones past it, as
    // the planner sees them: a prune with nothing to delete, and one that deletes a full batch.
    await client.query(`INSERT INTO webhook_endpoints (url, secret, events, source, created_at)
      VALUES ('http://127.0.0.1:9/a', 'whsec_a', 'plant.created', 'admin', 0)`);
    await client.query(`INSERT INTO webhook_deliveries (event_id, type, body, created_at, endpoint, state, next_attempt_at)
      SELECT 'msg_' || n, 'plant.created', '{}', n, 1, CASE WHEN n % 100 = 0 THEN 'pending' ELSE 'delivered' END, 0
      FROM generate_series(1, 120000) AS n`);
    await client.query("ANALYZE webhook_deliveries");
    for (const before of [0, 20_000]) {
      const explained = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (FORMAT JSON) ${POSTGRES_PRUNE_SQL}`,
        [before, 10_000],
      );
      const plan = nodes(explained.rows[0]!["QUERY PLAN"][0]!.Plan);
      expect(plan.filter((node) => node["Node Type"].includes("Seq Scan"))).toEqual([]);
      expect(plan.map((node) => node["Index Name"])).toContain("webhook_deliveries_delivered_created");
    }
  });
});
