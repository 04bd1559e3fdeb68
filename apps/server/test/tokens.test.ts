import { spawnSync } from "node:child_process";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { postgresBackend, sqliteBackend, type TestBackend } from "../src/test-support/databases.js";
import { postgresTestTarget } from "../src/test-support/test-database.js";
import {
  killSpawnedServers,
  MAIN,
  spawnServer,
  stringify,
  waitForOutput,
  type ServerProcess,
} from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

const TIMEOUT = 300_000;
// Each test here starts Node processes (the server, an admin command): a start took up to 40 s with
// both cores busy. The suite's 30 s is a deadline for a hang, and these need a larger one.
vi.setConfig({ testTimeout: TIMEOUT });

/** The token rules as users meet them: `node dist/main.js` and its `tokens` command, on each backend. */
afterEach(killSpawnedServers);

const FIRST_RUN_TOKEN = /\n {2}(ps_[A-Za-z0-9_-]{43})\n/;

function create(url: string, id: bigint, token: string): Promise<number> {
  return fetch(`${url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: stringify({ id, name: `plant ${id}` }),
  }).then((response) => response.status);
}

async function stop(server: ServerProcess): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

function tokensCommand(databaseUrl: string) {
  return (...args: string[]) =>
    spawnSync(process.execPath, [MAIN, "tokens", ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: "utf8",
    });
}

/** Every line the server wrote to standard output is a JSON log record. */
function expectOnlyLogLines(server: ServerProcess): void {
  for (const line of server
    .stdout()
    .split("\n")
    .filter((l) => l !== ""))
    expect(() => JSON.parse(line), line).not.toThrow();
}

function describeTokenRules(backend: TestBackend): void {
  afterAll(() => backend.cleanup());

  it("prints the first-run token once, on standard error only, with a command and a URL that work here", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const server = await spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "", HOST: "0.0.0.0" });
    const token = (await waitForOutput(server, FIRST_RUN_TOKEN))[1]!;
    expect(server.stdout()).not.toContain(token);
    expectOnlyLogLines(server);
    const port = new URL(server.url).port;
    // Bound to every address: the example calls one a person can reach, not 0.0.0.0.
    expect(server.output()).toContain(` http://127.0.0.1:${port}/plants`);
    const notice = server.output().slice(server.output().indexOf("Plant Store created"));
    expect(notice.slice(0, notice.indexOf("{"))).not.toContain("0.0.0.0");
    // Started as `node …/main.js`: that is the command it names (no npm script is near).
    expect(server.output()).toContain(`${process.execPath} ${MAIN} tokens list | create [label] | revoke <id>`);
    expect(await create(`http://127.0.0.1:${port}`, 1n, token)).toBe(200);
    expect(await stop(server)).toBe(0);
  });

  it("mints no new token after every token was revoked: warns once, answers 401 until `tokens create`", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const tokens = tokensCommand(databaseUrl);
    const first = await spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "" });
    const token = (await waitForOutput(first, FIRST_RUN_TOKEN))[1]!;
    expect(await stop(first)).toBe(0);
    expect(tokens("revoke", "1").status).toBe(0);

    // Started as the image starts it: the command it names is the one run from outside the container.
    const second = await spawnServer({
      DATABASE_URL: databaseUrl,
      PLANTSTORE_TOKENS: "",
      PLANTSTORE_ADMIN_COMMAND: "docker run --rm -v plantdata:/data plantstore",
    });
    const warnings = second
      .stdout()
      .split("\n")
      .filter((line) => line.includes("no active API token"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: 40,
      create: "docker run --rm -v plantdata:/data plantstore tokens create",
    });
    expect(await create(second.url, 1n, token)).toBe(401);

    const created = tokens("create", "after-incident");
    expect(created.status).toBe(0);
    const fresh = created.stdout.trim();
    // The running server's refresh picks it up: no restart.
    await waitFor("the new token to be accepted", async () => (await create(second.url, 2n, fresh)) === 200);
    expect(await stop(second)).toBe(0);
    expect(second.output()).not.toContain("created an API token");
  });

  it("mints no token on a store that was used with PLANTSTORE_TOKENS", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    expect(await stop(await spawnServer({ DATABASE_URL: databaseUrl }))).toBe(0);
    const without = await spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "" });
    await waitForOutput(without, /"msg":"no active API token/);
    expect(await stop(without)).toBe(0);
    expect(without.output()).not.toContain("created an API token");
  });
}

describe("tokens on SQLite", () => describeTokenRules(sqliteBackend()));

describeWith(await postgresTestTarget(), "tokens on PostgreSQL", (url) => {
  const backend = postgresBackend(url);
  describeTokenRules(backend);

  it("two instances starting at once on a new store print one first-run token between them", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const servers = await Promise.all(
      [0, 1].map(() => spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "" })),
    );
    const token = await waitFor("a first-run token", () =>
      servers.map((server) => FIRST_RUN_TOKEN.exec(server.output())?.[1]).find((found) => found !== undefined),
    );
    // Each instance accepts it, and each refuses it within the refresh once revoked.
    for (const server of servers) expect(await create(server.url, 1n, token)).toBe(200);
    expect(tokensCommand(databaseUrl)("revoke", "1").status).toBe(0);
    for (const server of servers) {
      await waitFor("the revoked token to be refused", async () => (await create(server.url, 2n, token)) === 401);
    }
    expect(await Promise.all(servers.map(stop))).toEqual([0, 0]);
    // Everything they printed is in now: one token between them.
    const printed = servers.flatMap((server) => [...server.output().matchAll(new RegExp(FIRST_RUN_TOKEN, "g"))]);
    expect(printed).toHaveLength(1);
  });
});
