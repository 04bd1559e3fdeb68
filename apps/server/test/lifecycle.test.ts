import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import {
  killSpawnedServers,
  MAIN,
  spawnServer,
  stringify,
  TOKEN,
  waitForOutput,
  type ServerProcess,
} from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

function create(url: string, id: bigint, token = TOKEN): Promise<number> {
  return fetch(`${url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: stringify({ id, name: `plant ${id}` }),
  }).then(
    (response) => response.status,
    () => 0, // connection refused or cut: no answer
  );
}

async function stop(server: ServerProcess): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

describe("the process as users run it", () => {
  it("keeps every plant across a restart on the same file", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const first = await spawnServer({ DATABASE_URL: databaseUrl });
    const ids = Array.from({ length: 20 }, (_, i) => 500n + BigInt(i));
    expect(await Promise.all(ids.map((id) => create(first.url, id)))).toEqual(Array(20).fill(200));
    expect(await stop(first)).toBe(0);

    const second = await spawnServer({ DATABASE_URL: databaseUrl });
    // Every id replays (200, same body) and a different body conflicts: the plants are there.
    expect(await Promise.all(ids.map((id) => create(second.url, id)))).toEqual(Array(20).fill(200));
    const conflict = await fetch(`${second.url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: '{"id":500,"name":"other"}',
    });
    expect(conflict.status).toBe(409);
    expect(await stop(second)).toBe(0);
  });

  it("runs from an install path that contains /src/ (a container's WORKDIR /usr/src/app)", async () => {
    // The built server copied as an image installs it, its dependencies linked from this workspace.
    const install = join(mkdtempSync(join(tmpdir(), "plantstore-install-")), "usr", "src", "app");
    const built = dirname(dirname(MAIN));
    cpSync(join(built, "dist"), join(install, "dist"), { recursive: true });
    cpSync(join(built, "package.json"), join(install, "package.json"));
    symlinkSync(join(built, "node_modules"), join(install, "node_modules"));
    try {
      const server = await spawnServer(
        { DATABASE_URL: await backend.freshDatabaseUrl() },
        join(install, "dist", "main.js"),
      );
      // A create goes through the SQLite writer thread, which must be found beside the installed code.
      expect(await create(server.url, 9_007_199_254_740_993n)).toBe(200);
      expect(await stop(server)).toBe(0);
    } finally {
      rmSync(dirname(dirname(dirname(install))), { recursive: true, force: true });
    }
  });

  it("after kill -9 under concurrent load, keeps every plant that got a 200", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const server = await spawnServer({ DATABASE_URL: databaseUrl });
    const acknowledged: bigint[] = [];
    let next = 1n;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const id = next++;
        if ((await create(server.url, id)) === 200) acknowledged.push(id);
      }
    };
    const workers = Array.from({ length: 32 }, worker);
    // Kill under load once enough creates were acknowledged, however long a busy machine takes.
    await waitFor("200 acknowledged creates", () => acknowledged.length >= 200, { timeoutMs: 60_000 });
    server.child.kill("SIGKILL");
    killed = true;
    await Promise.all(workers);
    await server.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);

    const again = await spawnServer({ DATABASE_URL: databaseUrl });
    const { openStorage } = await import("../src/store/open-storage.js");
    const { createLogger } = await import("../src/logger.js");
    const storage = await openStorage(databaseUrl, {
      poolMax: 1,
      connectionTimeoutMs: 1000,
      idleTimeoutMs: 1000,
      logger: createLogger("silent"),
    });
    const missing: bigint[] = [];
    for (const id of acknowledged) if ((await storage.plants.find(id)) === undefined) missing.push(id);
    await storage.close();
    expect(missing).toEqual([]);
    expect(await stop(again)).toBe(0);
  });

  it("after kill -9 under concurrent edits, every plant has the name of its last acknowledged edit (or a later one cut off)", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const server = await spawnServer({ DATABASE_URL: databaseUrl });
    const ids = Array.from({ length: 32 }, (_, i) => 2n ** 53n + BigInt(i));
    expect(await Promise.all(ids.map((id) => create(server.url, id)))).toEqual(Array(32).fill(200));
    /** Per plant: the revision of its last acknowledged edit, and the one cut off by the kill (if any). */
    const acknowledged = new Map<bigint, number>();
    const inFlight = new Map<bigint, number>();
    let edits = 0;
    let killed = false;
    // One writer per plant: its edits go one after the other, so the last 200 is the latest change.
    const worker = async (id: bigint) => {
      for (let revision = 1; !killed; revision++) {
        inFlight.set(id, revision);
        const status = await fetch(`${server.url}/plants/${id}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: stringify({ name: `revision ${revision}` }),
        }).then(
          (response) => response.status,
          () => 0,
        );
        if (status !== 200) break;
        acknowledged.set(id, revision);
        edits++;
      }
    };
    const workers = ids.map(worker);
    await waitFor("300 acknowledged edits", () => edits >= 300, { timeoutMs: 60_000 });
    server.child.kill("SIGKILL");
    killed = true;
    await Promise.all(workers);
    await server.exited;

    const again = await spawnServer({ DATABASE_URL: databaseUrl });
    const wrong: string[] = [];
    for (const id of ids) {
      const plant = (await (
        await fetch(`${again.url}/plants/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as {
        name: string;
      };
      const last = acknowledged.get(id) ?? 0;
      // The acknowledged edit, or the one the kill cut off (committed or not, nobody was told).
      const allowed = [last === 0 ? `plant ${id}` : `revision ${last}`, `revision ${inFlight.get(id)}`];
      if (!allowed.includes(plant.name)) wrong.push(`${id}: ${plant.name}, expected one of ${allowed.join(" / ")}`);
    }
    expect(wrong).toEqual([]);
    expect(await stop(again)).toBe(0);
  });

  it("after kill -9 under creates and deletes, every 200 is there unless its delete got a 204, every 204 is gone", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const server = await spawnServer({ DATABASE_URL: databaseUrl });
    const created: bigint[] = [];
    const deleted = new Set<bigint>();
    /** Deletes cut off by the kill: committed or not, nobody was told. */
    const unanswered = new Set<bigint>();
    let next = 1n;
    let killed = false;
    const remove = (url: string, id: bigint) =>
      fetch(`${url}/plants/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } }).then(
        (response) => response.status,
        () => 0,
      );
    const worker = async () => {
      const mine: bigint[] = [];
      while (!killed) {
        const id = next++;
        if ((await create(server.url, id)) === 200) {
          created.push(id);
          mine.push(id);
        }
        // Every other round, delete one of this worker's own acknowledged plants.
        if (mine.length > 0 && id % 2n === 0n) {
          const victim = mine.splice(Math.floor(Math.random() * mine.length), 1)[0]!;
          const status = await remove(server.url, victim);
          if (status === 204) deleted.add(victim);
          else if (status === 0) unanswered.add(victim);
        }
      }
    };
    const workers = Array.from({ length: 32 }, worker);
    await waitFor("200 creates and 50 deletes acknowledged", () => created.length >= 200 && deleted.size >= 50, {
      timeoutMs: 60_000,
    });
    server.child.kill("SIGKILL");
    killed = true;
    await Promise.all(workers);
    await server.exited;

    const again = await spawnServer({ DATABASE_URL: databaseUrl });
    const read = (id: bigint) =>
      fetch(`${again.url}/plants/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.status);
    const wrong: string[] = [];
    for (const id of created) {
      if (unanswered.has(id)) continue;
      const status = await read(id);
      if (deleted.has(id) ? status !== 404 : status !== 200) wrong.push(`${id}: ${status}`);
    }
    expect(wrong).toEqual([]);
    expect(await stop(again)).toBe(0);
  });

  it("on SIGTERM finishes requests in flight (bodies still arriving included) and exits 0", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    const port = Number(new URL(server.url).port);
    let shuttingDown: () => void = () => {};
    const signalled = new Promise<void>((resolve) => (shuttingDown = resolve));
    // Requests whose bodies are only half sent when the signal arrives. `Expect: 100-continue`
    // tells when the server holds each request; the rest of each body follows the signal.
    const held: Promise<void>[] = [];
    const inFlight = Array.from(
      { length: 10 },
      (_, i) =>
        new Promise<number | undefined>((resolve, reject) => {
          const body = `{"id": ${100 + i}, "name": "slow"}`;
          const req = request({
            host: "127.0.0.1",
            port,
            path: "/plants",
            method: "POST",
            headers: {
              authorization: `Bearer ${TOKEN}`,
              "content-type": "application/json",
              "content-length": body.length,
              expect: "100-continue",
            },
          });
          req.on("response", (res) => {
            res.resume();
            resolve(res.statusCode);
          });
          req.on("error", reject);
          held.push(new Promise((continued) => req.once("continue", () => continued())));
          req.once("continue", () => {
            req.write(body.slice(0, 10));
            void signalled.then(() => req.end(body.slice(10)));
          });
        }),
    );
    await Promise.all(held);
    server.child.kill("SIGTERM");
    await waitForOutput(server, /"msg":"shutting down"/);
    shuttingDown();
    expect(await Promise.all(inFlight)).toEqual(Array(10).fill(200));
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
    // New connections are refused once it has stopped.
    expect(await create(server.url, 1n)).toBe(0);
  });
});

describe("the access log", () => {
  it("writes one line per request with its request id, whatever answered it", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    const { port } = new URL(server.url);
    const send = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, init).then((response) => response.headers.get("x-request-id"));
    const ids = [
      await send("/plants", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: '{"id": 1, "name": "Fern"}',
      }), // 200 from the route
      await send("/plants", { method: "POST" }), // 401 from the gate
      await send("/nowhere"), // 404 from routing
      await send("/plants", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: "{",
      }), // 400 from the body reader
    ];
    // 400 from Node's HTTP parser: a control byte in a header.
    const parserRefusal = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.end("GET / HTTP/1.1\r\nX: a\u0001\r\n\r\n"));
      let answer = "";
      socket.on("data", (chunk) => (answer += chunk.toString()));
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
    });
    ids.push(/X-Request-Id: (\S+)/.exec(parserRefusal)?.[1] ?? null);

    const statuses = [200, 401, 404, 400, 400];
    for (const [index, id] of ids.entries()) {
      expect(id).toEqual(expect.any(String));
      const line = await waitForOutput(server, new RegExp(`\\{[^\\n]*"requestId":"${id}"[^\\n]*"msg":"request"\\}`));
      expect(JSON.parse(line[0])).toMatchObject({ status: statuses[index], ms: expect.any(Number) });
      expect(server.output().split(`"requestId":"${id}"`).length - 1).toBe(1);
    }
    expect(await stop(server)).toBe(0);
  });
});

describe("configuration", () => {
  it.each([
    [{ PORT: "abc" }, /^plantstore: PORT must be an integer from 0 to 65535, got "abc"\n$/],
    [{ PORT: "70000" }, /^plantstore: PORT must be an integer/],
    [{ LOG_LEVEL: "loud" }, /^plantstore: LOG_LEVEL must be one of/],
    [{ DATABASE_URL: "mysql://x" }, /^plantstore: DATABASE_URL must be/],
    [{ PLANTSTORE_TOKENS: "short" }, /^plantstore: PLANTSTORE_TOKENS entry #1 must be/],
    // 16 (and 31) characters were accepted, and 401s are not throttled: too few to be beyond guessing.
    [{ PLANTSTORE_TOKENS: "0123456789abcdef" }, /^plantstore: PLANTSTORE_TOKENS entry #1 must be 32–512 characters/],
    [
      { PLANTSTORE_TOKENS: `${"a".repeat(32)},${"b".repeat(31)}:plants:read` },
      /^plantstore: PLANTSTORE_TOKENS entry #2 must be 32–512 characters[^\n]*\n$/,
    ],
    [{ PLANTSTORE_BODY_LIMIT_BYTES: "-1" }, /^plantstore: PLANTSTORE_BODY_LIMIT_BYTES must be/],
    [
      { PLANTSTORE_CORS_ORIGINS: "https://app.example.com,https://App.example.com/" },
      /^plantstore: PLANTSTORE_CORS_ORIGINS entry #2 "https:\/\/App.example.com\/" must be an exact origin such as https:\/\/app.example.com: scheme, host and port only \(did you mean "https:\/\/app.example.com"\?\)\n$/,
    ],
    [{ PLANTSTORE_CORS_ORIGINS: "*" }, /^plantstore: PLANTSTORE_CORS_ORIGINS entry #1 "\*" must be an exact origin/],
    [{ PLANTSTORE_CORS_ORIGINS: "ftp://files.example.com" }, /^plantstore: PLANTSTORE_CORS_ORIGINS entry #1 /],
    [{ PLANTSTORE_MAX_CONNECTIONS: "0" }, /^plantstore: PLANTSTORE_MAX_CONNECTIONS must be an integer from 1/],
  ])("refuses %j with one line and exit code 1", (env, message) => {
    const result = spawnSync(process.execPath, [MAIN], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\bat \S+:\d+:\d+/); // no stack trace
  });

  it("says so in one line when the port is taken", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    const port = new URL(server.url).port;
    const result = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: port, PLANTSTORE_TOKENS: TOKEN, DATABASE_URL: await backend.freshDatabaseUrl() },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^plantstore: port ${port} on 127.0.0.1 is already in use`));
    await stop(server);
  });
});

describe("tokens", () => {
  it("creates a first-run token once, prints it, and it works", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const first = await spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "" });
    const token = (await waitForOutput(first, /\n {2}(ps_[A-Za-z0-9_-]{43})\n/))[1];
    expect(await create(first.url, 1n, token)).toBe(200);
    expect(await create(first.url, 2n, "ps_not-the-token-at-all-xxxxxxxxxxxxxxxxx")).toBe(401);
    expect(await stop(first)).toBe(0);
    expect(first.output().split(token!).length - 1).toBe(2); // the notice and the curl example; never a log line

    const second = await spawnServer({ DATABASE_URL: databaseUrl, PLANTSTORE_TOKENS: "" });
    expect(second.output()).not.toContain("created an API token");
    expect(await create(second.url, 3n, token)).toBe(200);
    expect(await stop(second)).toBe(0);
  });

  it("manages tokens with `tokens create | list | revoke`", async () => {
    const env = { ...process.env, DATABASE_URL: await backend.freshDatabaseUrl() };
    const tokens = (...args: string[]) =>
      spawnSync(process.execPath, [MAIN, "tokens", ...args], { env, encoding: "utf8" });
    const created = tokens("create", "ci");
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^ps_/);
    const server = await spawnServer({ DATABASE_URL: env.DATABASE_URL, PLANTSTORE_TOKENS: "" });
    expect(server.output()).not.toContain("created an API token");
    expect(await create(server.url, 1n, token)).toBe(200);
    expect(tokens("list").stdout).toMatch(/^1\tci\tplants:read plants:write metrics:read\tcreated \S+\tactive\n$/);
    expect(tokens("revoke", "1").status).toBe(0);
    // Running servers re-read the token table every second: wait for the refusal, not for a time.
    await waitFor("the revoked token to be refused", async () => (await create(server.url, 2n, token)) === 401);
    expect(tokens("revoke", "1").status).toBe(1);
    expect(tokens("bogus").status).toBe(2);
    expect(await stop(server)).toBe(0);
    // Seven Node processes, one after another: ~0.7 s of CPU each, and 4-5 s each when a busy machine
    // gives the suite a small share of its cores (a CI run at load average 21 passed 30 s here).
  }, 120_000);
});
