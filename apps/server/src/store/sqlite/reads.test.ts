import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openConnection } from "./connection.js";
import { applyMigrations } from "./migrations.js";
import { OLDEST_PENDING_SQL } from "./reads.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// Read at every metrics scrape on the event loop's thread: it must not visit the pending rows
// (a dead endpoint's backlog has no bound), only the first entry of their index.
it("finds the oldest pending event by an index, without scanning", async () => {
  dir = await mkdtemp(join(tmpdir(), "plantstore-webhook-repository-"));
  const db = openConnection(join(dir, "plants.db"));
  try {
    applyMigrations(db);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${OLDEST_PENDING_SQL}`)
      .all()
      .map((step) => (step as { detail: string }).detail);
    expect(plan).toEqual(["SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_pending_created"]);
  } finally {
    db.close();
  }
});
