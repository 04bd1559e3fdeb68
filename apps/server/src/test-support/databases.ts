import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestSchema, TEST_DATABASE_ENV, type TestSchema } from "./test-database.js";

/** A storage backend the suites run against, each test run in its own file or schema. */
export interface TestBackend {
  name: "sqlite" | "postgres";
  /** A fresh, empty database URL. */
  freshDatabaseUrl(): Promise<string>;
  /** Removes everything freshDatabaseUrl created. */
  cleanup(): Promise<void>;
}

export const POSTGRES_URL = process.env[TEST_DATABASE_ENV];

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

/** Each fresh database is a new schema `t_<random>`, dropped at cleanup. */
export function postgresBackend(baseUrl: string): TestBackend {
  const schemas: TestSchema[] = [];
  return {
    name: "postgres",
    async freshDatabaseUrl() {
      const schema = await createTestSchema(baseUrl);
      schemas.push(schema);
      return schema.url;
    },
    async cleanup() {
      for (const schema of schemas.splice(0)) await schema.drop();
    },
  };
}

/**
 * SQLite always; PostgreSQL when PLANTSTORE_TEST_DATABASE_URL is set. Whether it must be set (CI)
 * is decided, and a skip announced, by the storage suite (src/store/storage.test.ts).
 */
export function testBackends(): TestBackend[] {
  return POSTGRES_URL ? [sqliteBackend(), postgresBackend(POSTGRES_URL)] : [sqliteBackend()];
}
