import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openConnection } from "./connection.js";
import { applyMigrations } from "./migrations.js";
import { OLDEST_PENDING_SQL } from "./webhook-repository.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// Read at every metrics scrape on the event loop's thread: it must not visit the pending rows
// (a dead endpoint's backlog has no bound), only the first entry of their index, nor the outbox's
// rows, only its first.
it("finds the oldest pending event by an index and the outbox's first row, without scanning", async () => {
  dir = await mkdtemp(join(tmpdir(), "plantstore-webhook-repository-"));
  const db = openConnection(join(dir, "plants.db"));
  try {
    applyMigrations(db);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${OLDEST_PENDING_SQL}`)
      .all()
      .map((step) => (step as { detail: string }).detail);
    // The outbox is read in rowid order, without sorting, so its scan stops at the first row (LIMIT 1).
    expect(plan.filter((step) => step.includes("webhook_"))).toEqual([
      "SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_pending_created",
      "SCAN webhook_outbox",
    ]);
    expect(plan.filter((step) => step.includes("TEMP B-TREE"))).toEqual([]);
  } finally {
    db.close();
  }
});
