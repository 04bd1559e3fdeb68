import { ErrorCode } from "@plantstore/contract";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TcpProxy } from "../src/test-support/tcp-proxy.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { MixedLoad } from "../src/test-support/mixed-load.js";
import { spawnServer, TOKEN, type ServerProcess } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/** The bytes of a COMMIT statement in a simple-query message. */
const COMMIT_STATEMENT = "COMMIT\0";

/**
 * PostgreSQL goes away under load, then comes back. Stopping the machine's PostgreSQL would break
 * every other test using it, so the server reaches PostgreSQL through a TCP proxy in this test and
 * the proxy is cut: open connections are torn down and new ones refused, which is what the server
 * sees when PostgreSQL stops (its sessions end, its port refuses connections). Restoring the proxy
 * is PostgreSQL starting again.
 */
const target = await postgresTestTarget();

describeWith(target, "PostgreSQL outage under load", (url) => {
  let schema: TestSchema;
  let proxy: TcpProxy;
  let server: ServerProcess;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    const upstream = new URL(schema.url);
    proxy = new TcpProxy(upstream.hostname, Number(upstream.port || 5432));
    const viaProxy = new URL(schema.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(await proxy.start());
    server = await spawnServer({ DATABASE_URL: viaProxy.toString(), PG_CONNECTION_TIMEOUT_MS: "1000" });
  });

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await proxy?.close();
    await schema?.drop();
  });

  it("answers 503 Error during the outage, recovers without a restart, and keeps every acknowledged write", async () => {
    const preloaded = Array.from({ length: 400 }, (_, index) => BigInt(index + 1));
    await MixedLoad.preload(server.url, preloaded);
    const load = new MixedLoad(server.url, preloaded, 1_000_000n);
    const readyz = async () => (await fetch(`${server.url}/readyz`)).status;
    // Creates, deletes, edits, reads and lists from 20 clients, back to back.
    load.start(20);

    await waitFor("50 successes before the outage", () => load.count((answer) => answer.status < 300) >= 50);
    // PostgreSQL restarts: every session ends, and for a while nothing listens on its port.
    await proxy.cut();
    const outageStart = load.answers.length;
    const readyDuringOutage = await waitFor("/readyz to fail", async () => (await readyz()) === 503 && 503);
    await waitFor(
      "50 refusals during the outage",
      () => load.answers.slice(outageStart).filter((a) => a.status === 503).length >= 50,
    );
    await proxy.restore();
    const afterStart = load.answers.length;
    // Recovery by itself: every kind of request succeeds again through the same process.
    await waitFor("each operation succeeding again after the outage", () =>
      (["create", "delete", "edit", "get", "list"] as const).every((op) =>
        load.answers.slice(afterStart).some((answer) => answer.op === op && answer.status < 300),
      ),
    );
    await load.stop();

    expect(readyDuringOutage).toBe(503);
    expect(await readyz()).toBe(200);
    expect(server.child.exitCode, server.output()).toBeNull();
    // Only the operation's own answers, or a 503 JSON Error with Retry-After.
    load.expectAllowedAnswers();
    // Every acknowledged create and delete is in the database as acknowledged; refused ones changed nothing.
    const tally = await load.expectStorageMatches(schema.url);
    console.info(
      `outage test: ${load.answers.length} requests, ${load.count((a) => a.status < 300)} succeeded, ` +
        `${load.count((a) => a.code === 50301)} × 503 STORAGE_UNAVAILABLE, ${load.count((a) => a.code === 50302)} × 503 OUTCOME_UNKNOWN; ` +
        `checked in storage: ${JSON.stringify(tally)}`,
    );
  });

  it("answers 503 OUTCOME_UNKNOWN when the connection is lost during COMMIT: the write may have happened", async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const create = (id: number) =>
      fetch(`${server.url}/plants`, { method: "POST", headers, body: JSON.stringify({ id, name: `plant ${id}` }) });
    expect((await create(900_001)).status).toBe(200);

    // The delete's COMMIT reaches PostgreSQL, and its answer never comes back. The marker is the whole
    // statement as the simple-query protocol sends it (NUL-terminated): the transaction's BEGIN names
    // READ COMMITTED, which a bare "COMMIT" would match, cutting the write before it was sent. Only
    // the delete's own connection: background transactions commit meanwhile on others.
    proxy.cutAfter(COMMIT_STATEMENT, "DELETE FROM plants");
    const deleted = await fetch(`${server.url}/plants/900001`, { method: "DELETE", headers });
    expect(deleted.status).toBe(503);
    expect(await deleted.json()).toMatchObject({ error: ErrorCode.OUTCOME_UNKNOWN });
    expect(Number(deleted.headers.get("retry-after"))).toBeGreaterThan(0);
    // It did commit here: a client that took the 503 for "not done" would now be told 404 by its retry.
    expect((await fetch(`${server.url}/plants/900001`, { method: "DELETE", headers })).status).toBe(404);

    proxy.cutAfter(COMMIT_STATEMENT, "INSERT INTO plants");
    const created = await create(900_002);
    expect(created.status).toBe(503);
    expect(await created.json()).toMatchObject({ error: ErrorCode.OUTCOME_UNKNOWN });
    // The create's retry is a replay of its own create.
    const retried = await create(900_002);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("plant-store-outcome")).toBe("replayed");
    expect(server.child.exitCode, server.output()).toBeNull();
  });
});
