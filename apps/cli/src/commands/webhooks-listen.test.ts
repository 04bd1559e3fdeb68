import { randomBytes } from "node:crypto";
import { parseExactJson } from "@plantstore/contract";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, type CliProcess } from "../test-support/run-cli.js";
import { TEST_TOKEN } from "../test-support/test-server.js";
import { waitFor } from "../test-support/wait-for.js";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const LISTENING = /listening for webhook deliveries on (http:\/\/127\.0\.0\.1:\d+\/)/;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `plantstore webhooks listen` on a free port, and the URL it says it listens on. */
async function listen(
  secret: string,
  ...extra: string[]
): Promise<{ cli: CliProcess; url: string; stdout: () => string }> {
  let stdout = "";
  const cli = spawnCli(["webhooks", "listen", "--port", "0", ...extra], { PLANTSTORE_WEBHOOK_SECRET: secret });
  cli.child.stdout?.on("data", (chunk: string) => (stdout += chunk));
  cleanups.push(async () => {
    if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    await cli.finished;
  });
  await waitFor(() => LISTENING.test(cli.stderr()) || cli.child.exitCode !== null, 30_000);
  const url = LISTENING.exec(cli.stderr())?.[1];
  if (url === undefined) throw new Error(`the listener did not start: ${cli.stderr()}`);
  return { cli, url, stdout: () => stdout };
}

/** The real server, sending every event to `url` signed with `secret`. */
async function plantStoreSendingTo(url: string, secret: string): Promise<DisposableServer> {
  const server = await startDisposableServer({
    tokens: [TEST_TOKEN],
    prefix: "plantstore-cli-webhooks-",
    config: { webhookUrls: [url], webhookSecret: secret },
  });
  cleanups.push(() => server.close());
  return server;
}

const call = (server: DisposableServer, method: string, path: string, body?: string) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
    body,
  });

describe("plantstore webhooks listen", () => {
  it("verifies and prints each event from the real server, and stops with exit code 0 on SIGTERM", async () => {
    const secret = newSecret();
    const { cli, url, stdout } = await listen(secret);
    const server = await plantStoreSendingTo(url, secret);
    const id = "9007199254740993";
    expect((await call(server, "POST", "/plants", `{"id":${id},"name":"Monstera","tag":"indoor"}`)).status).toBe(200);
    expect((await call(server, "DELETE", `/plants/${id}`)).status).toBe(204);

    await waitFor(() => stdout().split("\n").length > 2, 30_000);
    const lines = stdout().trim().split("\n").sort();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^plant\\.created\\t\\S+\\t${id}\\tMonstera\\tindoor$`));
    expect(lines[1]).toMatch(new RegExp(`^plant\\.deleted\\t\\S+\\t${id}\\tMonstera\\tindoor$`));

    cli.child.kill("SIGTERM");
    expect((await cli.finished).code).toBe(0);
  });

  it("prints exact JSON with --json", async () => {
    const secret = newSecret();
    const { url, stdout } = await listen(secret, "--json");
    const server = await plantStoreSendingTo(url, secret);
    expect((await call(server, "POST", "/plants", '{"id":-9223372036854775808,"name":"Min"}')).status).toBe(200);
    await waitFor(() => stdout().includes("\n"), 30_000);
    const event = parseExactJson(stdout().trim()) as { type: string; data: unknown; webhookId: string };
    expect(event).toMatchObject({ type: "plant.created", data: { id: -(2n ** 63n), name: "Min" } });
    expect(stdout()).toContain('"id":-9223372036854775808');
  });

  it("refuses a delivery signed with another secret: 400, the reason on standard error, nothing printed", async () => {
    const { cli, url, stdout } = await listen(newSecret());
    const server = await plantStoreSendingTo(url, newSecret());
    expect((await call(server, "POST", "/plants", '{"id":1,"name":"Fern"}')).status).toBe(200);
    await waitFor(() => cli.stderr().includes("refused a delivery (bad-signature)"), 30_000);
    const forged = await fetch(url, {
      method: "POST",
      headers: { "webhook-id": "msg_x", "webhook-timestamp": "1", "webhook-signature": "v1,AAAA" },
      body: "{}",
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: "timestamp-too-old" });
    expect(stdout()).toBe("");
  });

  it("refuses a malformed secret with exit code 2, before listening", async () => {
    const run = await runCli(["webhooks", "listen", "--port", "0", "--secret", "whsec_c2hvcnQ="]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^plantstore: --secret must hold 24 to 64 bytes/);
    expect(run.stderr).not.toContain("c2hvcnQ");
  });
});
