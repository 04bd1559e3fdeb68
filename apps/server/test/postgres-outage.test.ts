import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TcpProxy } from "../src/test-support/tcp-proxy.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { MixedLoad } from "../src/test-support/mixed-load.js";
import { spawnServer, type ServerProcess } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

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
    // Creates, deletes, reads and lists from 20 clients, back to back.
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
      (["create", "delete", "get", "list"] as const).every((op) =>
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
});
