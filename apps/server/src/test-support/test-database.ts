import { randomBytes } from "node:crypto";
import pg from "pg";

/** Test support (not used by the server): where the PostgreSQL tests run, and their schemas. */
export const TEST_DATABASE_ENV = "PLANTSTORE_TEST_DATABASE_URL";

export type PostgresTestTarget =
  | { kind: "ready"; url: string }
  /** Not configured on a developer machine: the suite is skipped, saying why in one line. */
  | { kind: "skipped"; reason: string }
  /** Configured but unreachable, or not configured under CI=true: the suite fails. */
  | { kind: "failed"; reason: string };

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

/** Decides once per test file whether the PostgreSQL tests run, skip, or fail (never skip in CI). */
export async function resolvePostgresTestTarget(): Promise<PostgresTestTarget> {
  const url = process.env[TEST_DATABASE_ENV]?.trim();
  const inCi = process.env.CI === "true";
  if (!url) {
    const reason = `${TEST_DATABASE_ENV} is not set`;
    return inCi
      ? { kind: "failed", reason: `${reason}, and CI=true requires the PostgreSQL tests` }
      : { kind: "skipped", reason };
  }
  const problem = await probe(url);
  if (problem !== undefined) {
    return { kind: "failed", reason: `PostgreSQL at ${TEST_DATABASE_ENV} is unreachable: ${problem}` };
  }
  return { kind: "ready", url };
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
