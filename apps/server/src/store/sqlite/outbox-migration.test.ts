import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { openStorage } from "../open-storage.js";
import type { Storage } from "../storage.js";
import { GONE_REASON, UNCONFIGURED_REASON } from "../webhook-rows.js";
import { openConnection } from "./connection.js";
import { applyMigrations } from "./migrations.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// An older version wrote a batch's events as one webhook_outbox row, made into deliveries when
// claimed. Upgrading must turn what it left there into deliveries: they are acknowledged changes'.
it("upgrading from the outbox (version 8) makes its events deliveries, as a claim would have, and drops it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "plantstore-outbox-migration-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "plants.db");
  const db = openConnection(path);
  applyMigrations(db, 8);
  db.prepare(
    `INSERT INTO webhook_endpoints (id, url, secret, events, source, created_at, disabled_at, disabled_reason) VALUES
       (1, 'http://127.0.0.1:9/active', 'whsec_a', 'plant.created plant.deleted', 'admin', 1000, NULL, NULL),
       (2, 'http://127.0.0.1:9/gone', 'whsec_b', 'plant.created', 'admin', 1000, 1500, ?),
       (3, 'http://127.0.0.1:9/left', 'whsec_c', 'plant.created', 'config', 1000, 1500, ?)`,
  ).run(GONE_REASON, UNCONFIGURED_REASON);
  db.exec(`INSERT INTO webhook_deliveries (event_id, type, body, created_at, endpoint, next_attempt_at, state, attempts)
           VALUES ('msg_0', 'plant.created', '{"id":0}', 900, 1, 900, 'delivered', 1)`);
  // Endpoint 4 was removed after the first event: it gets nothing.
  db.prepare("INSERT INTO webhook_outbox (created_at, events) VALUES (?, ?), (?, ?)").run(
    1000,
    'msg_a plant.created 1,2,4 {"id":1,"name":"a b"}\nmsg_b plant.created 1,3 {"id":2}',
    2000,
    'msg_c plant.deleted 1 {"id":1}',
  );
  db.close();

  const storage: Storage = await openStorage(`sqlite:${path}`, {
    poolMax: 1,
    connectionTimeoutMs: 5_000,
    idleTimeoutMs: 30_000,
    logger: pino({ level: "silent" }),
  });
  cleanups.push(() => storage.close());
  const listed = await storage.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
  expect(listed.map((d) => [d.delivery, d.eventId, d.type, d.endpoint, d.state, d.lastError])).toEqual([
    [6, "msg_c", "plant.deleted", 1, "pending", undefined],
    [5, "msg_b", "plant.created", 3, "pending", undefined],
    [4, "msg_b", "plant.created", 1, "pending", undefined],
    [3, "msg_a", "plant.created", 2, "failed", GONE_REASON],
    [2, "msg_a", "plant.created", 1, "pending", undefined],
    [1, "msg_0", "plant.created", 1, "delivered", undefined],
  ]);
  // Due from their commit's time, bodies as they were written.
  const due = await storage.webhooks.claimDue({
    owner: "a",
    limit: 10,
    perEndpoint: 10,
    leaseMs: 60_000,
    busy: [],
    holding: [],
  });
  expect(due.map((d) => [d.delivery, d.body])).toEqual([
    [2, '{"id":1,"name":"a b"}'],
    [4, '{"id":2}'],
    [6, '{"id":1}'],
  ]);
  expect(await storage.webhooks.oldestPendingAgeSeconds()).toBeGreaterThan(Date.now() / 1000 - 10);

  const after = openConnection(path);
  cleanups.push(async () => after.close());
  expect(after.prepare("SELECT name FROM sqlite_master WHERE name = 'webhook_outbox'").all()).toEqual([]);
});
