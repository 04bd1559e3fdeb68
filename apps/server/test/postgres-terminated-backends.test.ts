import { spawn } from "node:child_process";
import pg from "pg";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MixedLoad, type LoadAnswer } from "../src/test-support/mixed-load.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { MAIN, spawnServer, type ServerProcess } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";
import { WebhookReceiver } from "../src/test-support/webhook-receiver.js";

/**
 * PostgreSQL ends the server's sessions while every kind of work is in flight (what an operator's
 * pg_terminate_backend, a failover or a crashed backend does): creates, deletes, reads and lists from
 * clients (edits too), the webhook delivery worker, the token refresh. The server's connections carry their own
 * application_name, so only this test's server loses them (the machine's PostgreSQL is shared).
 */
const target = await postgresTestTarget();

const WEBHOOK_SECRET = "whsec_dGVybWluYXRlZC1iYWNrZW5kcy10ZXN0LXNlY3JldA==";

describeWith(target, "PostgreSQL sessions terminated under load", (url) => {
  let schema: TestSchema;
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let admin: pg.Client;
  let databaseUrl: string;

  /** Ends every session of the server under test; returns how many. */
  const terminate = async (): Promise<number> => {
    const result = await admin.query<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [schema.schema],
    );
    return result.rows[0]!.n;
  };

  beforeAll(async () => {
    schema = await createTestSchema(url);
    const withName = new URL(schema.url);
    withName.searchParams.set("application_name", schema.schema);
    databaseUrl = withName.toString();
    receiver = await WebhookReceiver.start();
    server = await spawnServer({
      DATABASE_URL: databaseUrl,
      PG_CONNECTION_TIMEOUT_MS: "1000",
      PLANTSTORE_WEBHOOK_URLS: receiver.url,
      PLANTSTORE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PLANTSTORE_WEBHOOK_RETRY_DELAYS: "0,0,0,0,0,0,0,0,0,0",
    });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await admin?.end();
    await receiver?.close();
    await schema?.drop();
  });

  it("answers 200/204 or a 503 Error while its sessions are terminated, keeps every acknowledged write, and goes on serving", async () => {
    const preloaded = Array.from({ length: 300 }, (_, index) => BigInt(index + 1));
    await MixedLoad.preload(server.url, preloaded);
    const load = new MixedLoad(server.url, preloaded, 1_000_000n);
    load.start(16);
    let terminated = 0;
    for (let round = 0; round < 12; round++) {
      const seen = load.answers.length;
      await waitFor("requests between two terminations", () => load.answers.length >= seen + 25);
      terminated += await terminate();
    }
    await load.stop();

    expect(server.child.exitCode, server.output()).toBeNull();
    expect(terminated).toBeGreaterThan(0);
    load.expectAllowedAnswers();
    const tally = await load.expectStorageMatches(schema.url);

    // Serving again, without a restart.
    await waitFor("/readyz to answer 200", async () => (await fetch(`${server.url}/readyz`)).status === 200);

    // The delivery worker lived through it: every acknowledged change's event arrives.
    const eventOf: Partial<Record<LoadAnswer["op"], [status: number, type: string]>> = {
      create: [200, "plant.created"],
      delete: [204, "plant.deleted"],
      edit: [200, "plant.updated"],
    };
    const expected = load.answers.flatMap((answer) => {
      const event = eventOf[answer.op];
      return event !== undefined && answer.status === event[0] ? [`${event[1]} ${answer.id}`] : [];
    });
    await waitFor(
      "an event for every acknowledged create, delete and edit",
      () => {
        const delivered = new Set(receiver.events().map((event) => `${event.event.type} ${event.event.data.id}`));
        return expected.every((event) => delivered.has(event));
      },
      { timeoutMs: 60_000 },
    );

    // The token refresh lived through it too: a token created now is accepted within its refresh.
    await terminate();
    const token = await createToken(databaseUrl);
    await waitFor("the new token to be accepted", async () => {
      const response = await fetch(`${server.url}/plants/1`, { headers: { authorization: `Bearer ${token}` } });
      return response.status === 404;
    });
    expect(server.child.exitCode, server.output()).toBeNull();

    const count = (predicate: Parameters<MixedLoad["count"]>[0]) => load.count(predicate);
    console.info(
      `terminated-backends test: ${terminated} sessions ended, ${load.answers.length} requests, ` +
        `${count((a) => a.status < 300)} succeeded, ${count((a) => a.code === 50301)} × 503 STORAGE_UNAVAILABLE, ` +
        `${count((a) => a.code === 50302)} × 503 OUTCOME_UNKNOWN; checked in storage: ${JSON.stringify(tally)}`,
    );
  });
});

/** `tokens create` as an operator runs it; returns the printed token. */
async function createToken(databaseUrl: string): Promise<string> {
  const child = spawn(process.execPath, [MAIN, "tokens", "create", "after-termination"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`tokens create exited with ${code}: ${err}`);
  return out.trim();
}
