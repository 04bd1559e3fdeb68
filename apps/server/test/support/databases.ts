import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** A storage backend the suites run against, each test run in its own file or schema. */
export interface TestBackend {
  name: "sqlite" | "postgres";
  /** A fresh, empty database URL. */
  freshDatabaseUrl(): Promise<string>;
  /** Removes everything freshDatabaseUrl created. */
  cleanup(): Promise<void>;
}

export const POSTGRES_URL = process.env.PLANTSTORE_TEST_DATABASE_URL;

export function sqliteBackend(): TestBackend {
  const directories: string[] = [];
  return {
    name: "sqlite",
    async freshDatabaseUrl() {
      const directory = mkdtempSync(join(tmpdir(), "plantstore-test-"));
      directories.push(directory);
      return `sqlite:${join(directory, "plants.db")}`;
    },
    async cleanup() {
      for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Each fresh database is a new schema, selected through the URL's `options` (search_path). */
export function postgresBackend(baseUrl: string): TestBackend {
  const schemas: string[] = [];
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: "postgres",
    async freshDatabaseUrl() {
      const schema = `t_${randomBytes(6).toString("hex")}`;
      await admin((client) => client.query(`CREATE SCHEMA ${schema}`));
      schemas.push(schema);
      const url = new URL(baseUrl);
      url.searchParams.set("options", `-c search_path=${schema}`);
      return url.toString();
    },
    async cleanup() {
      const dropping = schemas.splice(0);
      if (dropping.length === 0) return;
      await admin(async (client) => {
        for (const schema of dropping) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      });
    },
  };
}

/**
 * SQLite always; PostgreSQL when PLANTSTORE_TEST_DATABASE_URL is set. In CI the variable must be
 * set (checked in postgres-required.test.ts), so PostgreSQL is never skipped there.
 */
export function testBackends(): TestBackend[] {
  return POSTGRES_URL ? [sqliteBackend(), postgresBackend(POSTGRES_URL)] : [sqliteBackend()];
}
