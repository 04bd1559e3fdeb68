import { describeWith } from "@plantstore/vitest-config/optional";
import { afterEach, expect, it } from "vitest";
import { TcpProxy } from "../src/test-support/tcp-proxy.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { killSpawnedServers, spawnServer, stringify, TOKEN, waitForOutput } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";
import { WebhookReceiver } from "../src/test-support/webhook-receiver.js";
import { generateSecret } from "../src/webhooks/signing.js";

/**
 * PostgreSQL goes away while a webhook attempt's result is being recorded (reached through a TCP
 * proxy that the test cuts, as in postgres-outage.test.ts). The result must be recorded once the
 * database is back, and the delivery go on at once: not wait for its lease to run out (the attempt's
 * timeout + 30 s), which only a dead instance's deliveries should. The worker used to give up after
 * four retries (about 6 s); on a shared PostgreSQL short of connections under load, that made the
 * "never answers" webhook test wait out a lease, 40 s against its 30.
 */
const target = await postgresTestTarget();

describeWith(target, "a webhook attempt recorded across a PostgreSQL outage", (url) => {
  let schema: TestSchema | undefined;
  let proxy: TcpProxy | undefined;
  let hooks: WebhookReceiver | undefined;

  afterEach(async () => {
    killSpawnedServers();
    await hooks?.close();
    await proxy?.close();
    await schema?.drop();
  });

  it("is recorded once the database is back, however long it was away, and the delivery goes on", async () => {
    schema = await createTestSchema(url);
    const upstream = new URL(schema.url);
    const cutProxy = new TcpProxy(upstream.hostname, Number(upstream.port || 5432));
    proxy = cutProxy;
    const viaProxy = new URL(schema.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(await cutProxy.start());
    // The first attempt is answered 500 (to be retried), and its result cannot be recorded: the
    // database goes away as it arrives.
    hooks = await WebhookReceiver.start((attempt) => {
      if (attempt.seenBefore > 0) return 204;
      void cutProxy.cut();
      return 500;
    });
    const server = await spawnServer({
      DATABASE_URL: viaProxy.toString(),
      PG_CONNECTION_TIMEOUT_MS: "500",
      PLANTSTORE_WEBHOOK_URLS: hooks.url,
      PLANTSTORE_WEBHOOK_SECRET: generateSecret(),
      PLANTSTORE_WEBHOOK_RETRY_DELAYS: "0.1,0.1",
      PLANTSTORE_WEBHOOK_TIMEOUT_MS: "1000",
    });
    const created = await fetch(`${server.url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: stringify({ id: 1n, name: "Fern" }),
    });
    expect(created.status).toBe(200);

    // Past the fourth retry (over 6 s), where the worker used to give up and leave the delivery to
    // its lease; then PostgreSQL comes back.
    await waitForOutput(server, /"retry":5,"msg":"could not record a webhook attempt; trying again"/);
    await cutProxy.restore();
    await waitFor("the second attempt, long before the lease of 31 s runs out", () => hooks!.attempts.length >= 2, {
      timeoutMs: 15_000,
    });
    await waitForOutput(server, /"attempt":2,"status":204,"outcome":"delivered"/, 15_000);
    expect(hooks.attempts.map((attempt) => attempt.seenBefore)).toEqual([0, 1]);
    expect(server.output()).not.toMatch(/failed to settle/);
  }, 60_000);
});
