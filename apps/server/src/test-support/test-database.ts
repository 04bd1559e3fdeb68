import { randomBytes } from "node:crypto";
import { availability, type Availability } from "@plantstore/vitest-config/optional";
import pg from "pg";

/** Test support (not used by the server): where the PostgreSQL tests run, and their schemas. */
export const TEST_DATABASE_ENV = "PLANTSTORE_TEST_DATABASE_URL";

async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Decides once per test file whether the PostgreSQL tests run (with the database's URL), skip with
 * one line (not configured, outside CI) or fail (configured but unreachable, or not configured
 * under CI=true): the rule every optional prerequisite follows (@plantstore/vitest-config/optional).
 */
export async function postgresTestTarget(): Promise<Availability<string>> {
  const url = process.env[TEST_DATABASE_ENV]?.trim();
  if (!url) {
    return availability("PostgreSQL", {
      missing: `${TEST_DATABASE_ENV} is not set`,
      hint: `set it, e.g. ${TEST_DATABASE_ENV}=postgres://postgres@127.0.0.1:5432/test`,
    });
  }
  const problem = await probe(url);
  return availability(
    "PostgreSQL",
    problem === undefined
      ? { found: url }
      : { broken: `PostgreSQL at ${TEST_DATABASE_ENV} is unreachable: ${problem}` },
  );
}

/** The connection string with `search_path` pointing at `schema` (kept with any existing options). */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get("options");
  parsed.searchParams.set("options", `${options ? `${options} ` : ""}-c search_path=${schema}`);
  return parsed.toString();
}

export interface TestSchema {
  schema: string;
  /** The test database's URL, confined to this schema. */
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema `t_<random>` so that test runs never see each other's rows. */
export async function createTestSchema(baseUrl: string): Promise<TestSchema> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    url: withSearchPath(baseUrl, schema),
    drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}
