import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { pino } from "pino";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterEach, describe, expect, it } from "vitest";
import { openStorage } from "./open-storage.js";
import type { Storage, StorageOptions } from "./storage.js";
import { openConnection } from "./sqlite/connection.js";
import { applyMigrations as applySqliteMigrations } from "./sqlite/migrations.js";
import { applyMigrations as applyPostgresMigrations } from "./postgres/migrations.js";
import { createTestSchema, postgresTestTarget } from "../test-support/test-database.js";

const logger = pino({ level: "silent" });
const options: StorageOptions = { poolMax: 4, connectionTimeoutMs: 5_000, idleTimeoutMs: 30_000, logger };

/** Runs SQL on the schema as it was at version 5 (separate event and delivery tables). */
type Sql = (text: string) => Promise<void>;

/**
 * Rows as a version-5 server left them: three events to two endpoints, a delivered, a pending and a
 * failed delivery, and the newest delivery deleted (its id must never be given again).
 */
async function writeVersion5Rows(sql: Sql): Promise<void> {
  await sql(`INSERT INTO webhook_endpoints (url, secret, events, source, created_at) VALUES
    ('http://127.0.0.1:9/a', 'whsec_a', 'plant.created plant.deleted', 'admin', 1000),
    ('http://127.0.0.1:9/b', 'whsec_b', 'plant.created', 'admin', 1000)`);
  await sql(`INSERT INTO webhook_events (event_id, type, body, created_at) VALUES
    ('msg_1', 'plant.created', '{"id":1}', 2000),
    ('msg_2', 'plant.deleted', '{"id":2}', 3000),
    ('msg_3', 'plant.created', '{"id":3}', 4000)`);
  await sql(`INSERT INTO webhook_deliveries (event, endpoint, state, attempts, next_attempt_at, last_status, finished_at) VALUES
    (1, 1, 'delivered', 1, 2000, 204, 2100),
    (2, 1, 'pending', 0, 3000, NULL, NULL),
    (3, 2, 'failed', 3, 4000, 500, 4500),
    (3, 1, 'pending', 0, 4000, NULL, NULL)`);
  await sql("DELETE FROM webhook_deliveries WHERE id = 4");
}

function describeUpgrade(name: string, setUp: () => Promise<{ sql: Sql; url: string; destroy(): Promise<void> }>) {
  describe(`upgrading webhook storage to one row per delivery (${name})`, () => {
    const cleanups: Array<() => Promise<unknown>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it("keeps every delivery with its event, its state and its id, and never gives an id twice", async () => {
      const { sql, url, destroy } = await setUp();
      cleanups.push(destroy);
      await writeVersion5Rows(sql);
      const storage: Storage = await openStorage(url, options);
      cleanups.push(() => storage.close());

      const listed = await storage.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
      expect(listed.map((d) => [d.delivery, d.eventId, d.type, d.endpoint, d.state, d.attempts, d.lastStatus])).toEqual(
        [
          [3, "msg_3", "plant.created", 2, "failed", 3, 500],
          [2, "msg_2", "plant.deleted", 1, "pending", 0, undefined],
          [1, "msg_1", "plant.created", 1, "delivered", 1, 204],
        ],
      );
      const [due] = await storage.webhooks.claimDue({
        owner: "a",
        limit: 10,
        perEndpoint: 4,
        leaseMs: 60_000,
        busy: [],
        holding: [],
      });
      expect(due).toMatchObject({ delivery: 2, eventId: "msg_2", body: '{"id":2}', secrets: ["whsec_a"] });

      // New deliveries continue after the deleted 4: ids shown to admins never point at another delivery.
      await storage.plants.create({ id: 10n, name: "Fern" });
      const fresh = await storage.webhooks.listDeliveries({ failedOnly: false, limit: 2 });
      expect(fresh.map((d) => [d.delivery, d.type])).toEqual([
        [6, "plant.created"],
        [5, "plant.created"],
      ]);
      // Pruning removes the delivered delivery only: the failed one keeps its event for redelivery.
      expect(await storage.webhooks.prune(Date.now() + 60_000, 10)).toBe(1);
      expect(await storage.webhooks.redeliver(3)).toBe(true);
    });
  });
}

describeUpgrade("SQLite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "plantstore-migration-"));
  const path = join(dir, "plants.db");
  const db = openConnection(path);
  applySqliteMigrations(db, 5);
  return {
    url: `sqlite:${path}`,
    sql: async (text) => void db.exec(text),
    destroy: async () => {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeWith(await postgresTestTarget(), "the webhook upgrade on PostgreSQL", (baseUrl) => {
  describeUpgrade("PostgreSQL", async () => {
    const schema = await createTestSchema(baseUrl);
    const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
    await applyPostgresMigrations(pool, logger, 5);
    return {
      url: schema.url,
      sql: async (text) => void (await pool.query(text)),
      destroy: async () => {
        await pool.end();
        await schema.drop();
      },
    };
  });
});
