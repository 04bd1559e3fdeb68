import pg from "pg";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterEach, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../src/store/postgres/migrations.js";
import { pgbouncerTarget, startPgBouncer } from "../src/test-support/pgbouncer.js";
import { createTestSchema, postgresTestTarget } from "../src/test-support/test-database.js";
import { killSpawnedServers, spawnServer, stringify, TOKEN } from "../src/test-support/test-server.js";

/**
 * Several instances behind PgBouncer in transaction mode, where each transaction may run on any
 * server connection: nothing may rely on session state (a session advisory lock taken in one
 * transaction and released in another, a SET, a named prepared statement). Three instances start
 * together on a fresh schema, several times: each must start, the schema be migrated exactly once,
 * every instance serve creates and reads, and no advisory lock be left behind.
 */
const postgres = await postgresTestTarget();
const RUNS = 4;

afterEach(killSpawnedServers);

describeWith(postgres, "PgBouncer in transaction mode", (url) => {
  describeWith(pgbouncerTarget(), "three instances starting together through PgBouncer", () => {
    it(`start, migrate once, serve, and leave no advisory lock, in ${RUNS} runs on fresh schemas`, async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        for (let run = 0; run < RUNS; run++) {
          const schema = await createTestSchema(url);
          const bouncer = await startPgBouncer(url, schema.schema);
          try {
            const env = { DATABASE_URL: bouncer.url, PG_POOL_MAX: "4", PG_CONNECTION_TIMEOUT_MS: "5000" };
            const servers = await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)]);

            const versions = await admin.query<{ version: number }>(
              `SELECT version FROM ${schema.schema}.plantstore_migrations ORDER BY version`,
            );
            expect(versions.rows.map((row) => row.version)).toEqual(
              Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1),
            );

            // Each instance creates plants; every instance reads every one of them.
            const ids = servers.flatMap((_, index) => [
              BigInt(run * 100 + index * 10 + 1),
              BigInt(run * 100 + index * 10 + 2),
            ]);
            await Promise.all(
              ids.map(async (id, index) => {
                const response = await fetch(`${servers[Math.floor(index / 2)]!.url}/plants`, {
                  method: "POST",
                  headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
                  body: stringify({ id, name: `plant ${id}` }),
                });
                expect(response.status).toBe(200);
              }),
            );
            for (const server of servers) {
              for (const id of ids) {
                const response = await fetch(`${server.url}/plants/${id}`, {
                  headers: { authorization: `Bearer ${TOKEN}` },
                });
                expect(response.status).toBe(200);
              }
            }

            // No advisory lock of this schema outlives its transaction.
            const locks = await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = (hashtext($1)::bigint & 4294967295)::oid",
              [schema.schema],
            );
            expect(locks.rows[0]!.n).toBe(0);

            for (const server of servers) server.child.kill("SIGTERM");
            await Promise.all(servers.map((server) => server.exited));
          } finally {
            await bouncer.stop();
            await schema.drop();
          }
        }
      } finally {
        await admin.end();
      }
    });
  });
});
