import pg from "pg";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TcpProxy } from "../src/test-support/tcp-proxy.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { TOKEN, spawnServer, stringify, type ServerProcess } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * PostgreSQL goes away under load, then comes back. Stopping the machine's PostgreSQL would break
 * every other test using it, so the server reaches PostgreSQL through a TCP proxy in this test and
 * the proxy is cut: open connections are torn down and new ones refused, which is what the server
 * sees when PostgreSQL stops (its sessions end, its port refuses connections). Restoring the proxy
 * is PostgreSQL starting again.
 */
const target = await postgresTestTarget();

interface Answer {
  id: bigint;
  status: number;
  body: { name?: string; error?: number; message?: string };
  retryAfter: string | null;
  phase: "before" | "outage" | "after";
}

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

  it("answers 503 Error during the outage, recovers without a restart, and keeps every 200", async () => {
    let phase: Answer["phase"] = "before";
    let nextId = 1n;
    let running = true;
    const answers: Answer[] = [];
    const post = async (): Promise<void> => {
      const id = nextId++;
      const current = phase;
      const response = await fetch(`${server.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: stringify({ id, name: `plant ${id}` }),
      });
      answers.push({
        id,
        status: response.status,
        body: (await response.json()) as Answer["body"],
        retryAfter: response.headers.get("retry-after"),
        phase: current,
      });
    };
    // 20 clients, each posting new ids back to back.
    const clients = Array.from({ length: 20 }, async () => {
      while (running) await post();
    });
    const readyz = async () => (await fetch(`${server.url}/readyz`)).status;

    const count = (inPhase: Answer["phase"], status: number) =>
      answers.filter((answer) => answer.phase === inPhase && answer.status === status).length;

    await waitFor("50 creates before the outage", () => count("before", 200) >= 50);
    await proxy.cut();
    phase = "outage";
    const readyDuringOutage = await waitFor("/readyz to fail", async () => (await readyz()) === 503 && 503);
    await waitFor("50 refusals during the outage", () => count("outage", 503) >= 50);
    await proxy.restore();
    phase = "after";
    // Recovery by itself: creates succeed again through the same process.
    await waitFor("50 creates after the outage", () => count("after", 200) >= 50);
    running = false;
    await Promise.all(clients);

    expect(readyDuringOutage).toBe(503);
    expect(await readyz()).toBe(200);
    expect(server.child.exitCode).toBeNull();

    // Only two answers are possible: a durable 200, or a 503 JSON Error with Retry-After.
    for (const answer of answers) {
      if (answer.status === 200) {
        expect(answer.body).toEqual({ name: `plant ${answer.id}` });
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answer.body).toMatchObject({ error: 50301 });
        expect(answer.body.message).toEqual(expect.any(String));
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
    }
    expect(count("before", 200)).toBeGreaterThan(0);
    expect(count("outage", 503)).toBeGreaterThan(0);
    expect(count("after", 200)).toBeGreaterThanOrEqual(50);

    // Every plant that got a 200 is in the database, exactly as acknowledged.
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    const rows = await client.query<{ id: string; name: string }>("SELECT id::text AS id, name FROM plants");
    await client.end();
    const stored = new Map(rows.rows.map((row) => [BigInt(row.id), row.name]));
    const acknowledged = answers.filter((a) => a.status === 200);
    for (const answer of acknowledged) expect(stored.get(answer.id), `plant ${answer.id}`).toBe(`plant ${answer.id}`);
    console.info(
      `outage test: ${answers.length} requests, ${acknowledged.length} × 200 (all present), ` +
        `${answers.length - acknowledged.length} × 503; before/outage/after 200s: ` +
        `${count("before", 200)}/${count("outage", 200)}/${count("after", 200)}`,
    );
  });
});
