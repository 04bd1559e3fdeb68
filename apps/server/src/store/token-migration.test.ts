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

type Sql = (text: string) => Promise<void>;
type OldStore = { sql: Sql; url: string; destroy(): Promise<void> };

/** Upgrading a store from before token changes were counted (and before "has held a token" was kept). */
function describeUpgrade(name: string, hexHash: (byte: string) => string, setUp: () => Promise<OldStore>) {
  describe(`upgrading token storage to counted changes (${name})`, () => {
    const cleanups: Array<() => Promise<unknown>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function upgrade(old: OldStore): Promise<Storage> {
      cleanups.push(old.destroy);
      const storage = await openStorage(old.url, options);
      cleanups.push(() => storage.close());
      return storage;
    }

    it("keeps a store whose tokens were all revoked from getting a first-run token, and follows changes", async () => {
      const old = await setUp();
      await old.sql(
        `INSERT INTO api_tokens (hash, label) VALUES (${hexHash("01")}, 'revoked'), (${hexHash("02")}, 'live')`,
      );
      await old.sql("UPDATE api_tokens SET revoked_at = created_at WHERE label = 'revoked'");
      const storage = await upgrade(old);

      expect(await storage.tokens.addFirstRunToken(Buffer.alloc(32, 3), "first run")).toBe(false);
      const first = await storage.tokens.changesSince();
      expect(first.tokens.filter((t) => t.active).map((t) => t.hash[0])).toEqual([2]);
      const [, live] = await storage.tokens.list();
      await storage.tokens.revoke(live!.id);
      const next = await storage.tokens.changesSince(first.version);
      expect(next.tokens.map((t) => [t.hash[0], t.active])).toEqual([[2, false]]);
    });

    it("gives a store that never held a token its first-run token", async () => {
      const storage = await upgrade(await setUp());
      expect(await storage.tokens.addFirstRunToken(Buffer.alloc(32, 3), "first run")).toBe(true);
    });
  });
}

describeUpgrade(
  "SQLite",
  (byte) => `X'${byte.repeat(32)}'`,
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "plantstore-migration-"));
    const path = join(dir, "plants.db");
    const db = openConnection(path);
    applySqliteMigrations(db, 8);
    return {
      url: `sqlite:${path}`,
      sql: async (text) => void db.exec(text),
      destroy: async () => {
        db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
);

describeWith(await postgresTestTarget(), "the token upgrade on PostgreSQL", (baseUrl) => {
  describeUpgrade(
    "PostgreSQL",
    (byte) => `'\\x${byte.repeat(32)}'::bytea`,
    async () => {
      const schema = await createTestSchema(baseUrl);
      const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
      await applyPostgresMigrations(pool, logger, 7);
      return {
        url: schema.url,
        sql: async (text) => void (await pool.query(text)),
        destroy: async () => {
          await pool.end();
          await schema.drop();
        },
      };
    },
  );
});
