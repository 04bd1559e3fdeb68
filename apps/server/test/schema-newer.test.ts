import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { killSpawnedServers, MAIN, spawnServer } from "../src/test-support/test-server.js";

/**
 * A rollback gone wrong: an older server started on a database a newer one migrated. It must stop at
 * start with one line naming both versions (exit 1), on both backends, rather than serve a schema
 * it does not know (SQLite failed with "no such table", PostgreSQL answered 500 to every write).
 */
afterEach(killSpawnedServers);
const backends = testBackends();
afterAll(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** Records a migration one version past the newest this code knows, as a newer server would. */
async function migrateAhead(backend: string, databaseUrl: string): Promise<{ database: number; code: number }> {
  if (backend === "sqlite") {
    const db = new Database(databaseUrl.replace(/^sqlite:/, ""));
    const { version } = db.prepare("SELECT max(version) AS version FROM schema_migrations").get() as {
      version: number;
    };
    db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version + 1, "2099-01-01");
    db.close();
    return { database: version + 1, code: version };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>(
      "SELECT max(version) AS version FROM plantstore_migrations",
    );
    const version = rows[0]!.version;
    await client.query("INSERT INTO plantstore_migrations (version, name) VALUES ($1, 'from the future')", [
      version + 1,
    ]);
    return { database: version + 1, code: version };
  } finally {
    await client.end();
  }
}

function run(databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", DATABASE_URL: databaseUrl, LOG_LEVEL: "info" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe.each(backends)("a schema newer than the code ($name)", (backend) => {
  it("stops the server at start with one line naming both versions", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const first = await spawnServer({ DATABASE_URL: databaseUrl });
    first.child.kill("SIGTERM");
    await first.exited;
    const versions = await migrateAhead(backend.name, databaseUrl);

    const older = await run(databaseUrl);
    expect(older.code).toBe(1);
    expect(older.stdout).not.toMatch(/"msg":"listening"/);
    const lines = older.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `the database schema is version ${versions.database}, newer than this server's ${versions.code}`,
    );
  });
});
