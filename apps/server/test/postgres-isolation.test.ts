import { randomBytes } from "node:crypto";
import { describeWith } from "@plantstore/vitest-config/optional";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { postgresTestTarget } from "../src/test-support/test-database.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";

/**
 * The server's transactions took the database's default isolation. Its conditional writes lock the
 * rows they decide on and rely on READ COMMITTED: a writer that waited for a row's lock then sees the
 * row as committed and decides on it (412). Under REPEATABLE READ the waiter failed instead with a
 * serialization failure, answered 503. A database of its own, with that default.
 */
const target = await postgresTestTarget();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describeWith(target, "a PostgreSQL database whose default isolation is REPEATABLE READ", (url) => {
  it("of 10 concurrent PUTs carrying the same If-Match, exactly one wins and the others get 412, never 503", async () => {
    const database = `plantstore_isolation_${randomBytes(4).toString("hex")}`;
    await admin(url, `CREATE DATABASE ${database}`);
    cleanups.push(() => admin(url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    await admin(url, `ALTER DATABASE ${database} SET default_transaction_isolation = 'repeatable read'`);
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${database}`;
    const server: TestServer = await startTestServer({ databaseUrl: databaseUrl.toString() });
    cleanups.push(() => server.close());

    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      const id = BigInt(round + 1);
      await server.create({ id, name: "Contested" });
      const etag = (await server.call("GET", `/plants/${id}`)).headers.get("etag")!;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) => server.put(id, { name: `Writer ${n}` }, { "if-match": etag })),
      );
      const inRound = answers.map((answer) => answer.status);
      expect(inRound.filter((status) => status === 200)).toHaveLength(1);
      statuses.push(...inRound);
    }
    expect(statuses.filter((status) => status !== 200 && status !== 412)).toEqual([]);
    expect(statuses.filter((status) => status === 412)).toHaveLength(45);
  });
});
