import { spawnSync } from "node:child_process";
import { ErrorCode } from "@plantstore/contract";
import { parsePrometheusText, sampleValue, type Family } from "../src/test-support/prometheus-text.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteBackend, testBackends } from "../src/test-support/databases.js";
import {
  killSpawnedServers,
  MAIN,
  spawnServer,
  startTestServer,
  type TestServer,
} from "../src/test-support/test-server.js";

const READ = "read-token-0123456789abcdef0123456789";
const WRITE = "write-token-0123456789abcdef0123456789";
const METRICS = "metrics-token-0123456789abcdef0123456789";
const ALL = "all-token-0123456789abcdef0123456789";
const REALM = 'Bearer realm="plantstore"';

const call = (server: { url: string }, token: string, method: string, path: string, body?: string) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body,
  });

async function expectInsufficientScope(response: Response, scope: string): Promise<void> {
  expect(response.status).toBe(403);
  expect(response.headers.get("www-authenticate")).toBe(`${REALM}, error="insufficient_scope", scope="${scope}"`);
  expect(await response.json()).toEqual({
    error: ErrorCode.INSUFFICIENT_SCOPE,
    message: expect.stringContaining(scope),
  });
}

describe.each(testBackends())("token scopes on $name", (backend) => {
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  it("a read-only token reads and is refused writes and metrics; a write-only token the reverse", async () => {
    server = await startTestServer({
      databaseUrl: await backend.freshDatabaseUrl(),
      tokens: [`${READ}:plants:read`, `${WRITE}:plants:write`, `${METRICS}:metrics:read`, ALL],
    });
    const plant = '{"id": 1, "name": "Fern"}';
    expect((await call(server, WRITE, "POST", "/plants", plant)).status).toBe(200);
    expect((await call(server, READ, "GET", "/plants/1")).status).toBe(200);
    expect((await call(server, READ, "GET", "/plants")).status).toBe(200);
    await expectInsufficientScope(
      await call(server, READ, "POST", "/plants", '{"id": 2, "name": "Moss"}'),
      "plants:write",
    );
    await expectInsufficientScope(await call(server, READ, "DELETE", "/plants/1"), "plants:write");
    await expectInsufficientScope(await call(server, READ, "PUT", "/plants/1", '{"name": "Moss"}'), "plants:write");
    await expectInsufficientScope(await call(server, READ, "GET", "/metrics"), "metrics:read");

    await expectInsufficientScope(await call(server, WRITE, "GET", "/plants/1"), "plants:read");
    await expectInsufficientScope(await call(server, WRITE, "GET", "/plants"), "plants:read");
    await expectInsufficientScope(await call(server, WRITE, "GET", "/metrics"), "metrics:read");
    expect((await call(server, WRITE, "DELETE", "/plants/1")).status).toBe(204);

    await expectInsufficientScope(await call(server, METRICS, "GET", "/plants"), "plants:read");
    expect((await call(server, METRICS, "GET", "/metrics")).status).toBe(200);
    // A token written without scopes (the old form) may do everything.
    expect((await call(server, ALL, "GET", "/metrics")).status).toBe(200);
    expect((await call(server, ALL, "POST", "/plants", plant)).status).toBe(200);
    expect(await server.storage.plants.count()).toBe(1);
  });

  it("refuses before reading the body: no validation leaks, nothing stored", async () => {
    const response = await call(server, READ, "POST", "/plants", "{ not json");
    await expectInsufficientScope(response, "plants:write");
    expect(await server.storage.plants.count()).toBe(1);
  });
});

describe("token scopes as users set them", () => {
  const backend = sqliteBackend();
  afterEach(killSpawnedServers);
  afterAll(() => backend.cleanup());

  const tokens = (env: NodeJS.ProcessEnv, ...args: string[]) =>
    spawnSync(process.execPath, [MAIN, "tokens", ...args], { env: { ...process.env, ...env }, encoding: "utf8" });

  it("tokens create --scopes: listed with its scopes, enforced, and the same after a restart", async () => {
    const env = { DATABASE_URL: await backend.freshDatabaseUrl(), PLANTSTORE_TOKENS: "" };
    const created = tokens(env, "create", "dashboard", "--scopes", "plants:read");
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(created.stderr).toContain("with scopes plants:read");
    expect(tokens(env, "list").stdout).toMatch(/^1\tdashboard\tplants:read\tcreated \S+\tactive\n$/);
    for (let run = 0; run < 2; run++) {
      const server = await spawnServer(env);
      expect((await call(server, token, "GET", "/plants")).status).toBe(200);
      await expectInsufficientScope(
        await call(server, token, "POST", "/plants", '{"id":1,"name":"a"}'),
        "plants:write",
      );
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    }
  });

  it.each([
    [["--scopes", "plants:read,plants:delete"], /unknown scope "plants:delete"/],
    [["--scopes", ""], /at least one scope/],
    [["--scopes", "plants:read", "extra", "more"], /usage/],
  ])("tokens create %j is refused with one line and exit code 2", async (args, message) => {
    const env = { DATABASE_URL: await backend.freshDatabaseUrl() };
    const result = tokens(
      env,
      "create",
      ...(args.length === 3 ? [args[0]!, args[1]!] : args),
      ...(args.length > 3 ? args.slice(2) : []),
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it.each([
    [
      { PLANTSTORE_TOKENS: `${READ}:plants:read+plants:erase` },
      /^plantstore: PLANTSTORE_TOKENS entry #1 .*unknown scope "plants:erase"/,
    ],
    [{ PLANTSTORE_TOKENS: `${READ}:` }, /^plantstore: PLANTSTORE_TOKENS entry #1 /],
    [{ PLANTSTORE_RATE_LIMIT: "100" }, /^plantstore: PLANTSTORE_RATE_LIMIT must be <requests>\/<window>/],
    [{ PLANTSTORE_RATE_LIMIT: "0/1s" }, /^plantstore: PLANTSTORE_RATE_LIMIT must be/],
    [{ PLANTSTORE_RATE_LIMIT: "10/1d" }, /^plantstore: PLANTSTORE_RATE_LIMIT must be/],
  ])("refuses %j at start with one line and exit code 1", (env, message) => {
    const result = spawnSync(process.execPath, [MAIN], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(READ); // never echoes the token
  });

  it("PLANTSTORE_TOKENS keeps old values valid and takes token:scope+scope", async () => {
    const server = await spawnServer({
      DATABASE_URL: await backend.freshDatabaseUrl(),
      PLANTSTORE_TOKENS: `${ALL}, ${READ}:plants:read+metrics:read`,
    });
    expect((await call(server, ALL, "POST", "/plants", '{"id":1,"name":"a"}')).status).toBe(200);
    expect((await call(server, READ, "GET", "/metrics")).status).toBe(200);
    await expectInsufficientScope(await call(server, READ, "DELETE", "/plants/1"), "plants:write");
  });
});

describe("rate limits", () => {
  const backend = sqliteBackend();
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  it("answers 429 with Retry-After over the limit, counts down, and limits each token on its own", async () => {
    server = await startTestServer({
      databaseUrl: await backend.freshDatabaseUrl(),
      tokens: [ALL, READ],
      rateLimit: { quota: 5, windowSeconds: 3600 },
    });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await call(server, ALL, "GET", "/plants");
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"default";q=5;w=3600');
      remaining.push(response.headers.get("ratelimit")!);
    }
    expect(remaining.map((value) => /^"default";r=(\d+);t=(\d+)$/.exec(value)?.[1])).toEqual(["4", "3", "2", "1", "0"]);
    for (const value of remaining) {
      const reset = Number(/;t=(\d+)$/.exec(value)?.[1]);
      expect(reset).toBeGreaterThan(3500);
      expect(reset).toBeLessThanOrEqual(3600);
    }

    const limited = await call(server, ALL, "POST", "/plants", '{"id": 1, "name": "a"}');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(limited.headers.get("ratelimit")).toBe(`"default";r=0;t=${retryAfter}`);
    expect(await limited.json()).toEqual({ error: ErrorCode.RATE_LIMITED, message: expect.any(String) });
    expect(await server.storage.plants.count()).toBe(0);

    // Another token has its own window.
    const other = await call(server, READ, "GET", "/plants");
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit")).toMatch(/^"default";r=4;t=\d+$/);
    // Refusals before authentication carry no rate-limit headers and use nobody's quota.
    const anonymous = await call(server, "not-a-valid-token-at-all", "GET", "/plants");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("ratelimit")).toBeNull();
  });
});

describe("GET /metrics", () => {
  const backend = sqliteBackend();
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  /** The exposition, read by a strict Prometheus text reader (it throws on a malformed line). */
  async function scrape(): Promise<Map<string, Family>> {
    const response = await call(server, METRICS, "GET", "/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await response.text());
  }
  const value = sampleValue;

  it("parses as Prometheus text, and its counters move as requests are made", async () => {
    server = await startTestServer({
      databaseUrl: await backend.freshDatabaseUrl(),
      tokens: [`${METRICS}:metrics:read`, ALL],
    });
    const before = await scrape();
    for (const family of [
      "plantstore_http_requests_total",
      "plantstore_http_request_duration_seconds",
      "plantstore_plant_outcomes_total",
      "plantstore_group_commit_batch_size",
      "plantstore_group_commit_duration_seconds",
      "plantstore_rate_limited_requests_total",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
      "nodejs_gc_duration_seconds",
    ]) {
      expect(before.has(family), family).toBe(true);
    }
    expect(before.get("plantstore_http_request_duration_seconds")?.type).toBe("histogram");

    const plant = '{"id": 7, "name": "Fern"}';
    await call(server, ALL, "POST", "/plants", plant);
    await call(server, ALL, "POST", "/plants", plant);
    await call(server, ALL, "POST", "/plants", '{"id": 7, "name": "Moss"}');
    await call(server, ALL, "PUT", "/plants/7", '{"name": "Fern", "tag": "shade"}');
    await call(server, ALL, "PUT", "/plants/7", '{"name": "Fern", "tag": "shade"}');
    await fetch(`${server.url}/plants/7`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ALL}`, "content-type": "application/json", "if-match": '"stale"' },
      body: '{"name": "Moss"}',
    });
    await call(server, ALL, "DELETE", "/plants/7");
    await call(server, ALL, "GET", "/plants/7");
    await call(server, ALL, "GET", "/nowhere");
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved("plantstore_http_requests_total", { operation: "createPlant", status: "200" })).toBe(2);
    expect(moved("plantstore_http_requests_total", { operation: "createPlant", status: "409" })).toBe(1);
    expect(moved("plantstore_http_requests_total", { operation: "deletePlant", status: "204" })).toBe(1);
    expect(moved("plantstore_http_requests_total", { operation: "getPlant", status: "404" })).toBe(1);
    expect(moved("plantstore_http_requests_total", { operation: "unmatched", status: "404" })).toBe(1);
    expect(moved("plantstore_http_requests_total", { operation: "metrics", status: "200" })).toBe(1);
    expect(moved("plantstore_http_request_duration_seconds", { operation: "createPlant", status: "200" })).toBe(2);
    expect(moved("plantstore_http_requests_total", { operation: "updatePlant", status: "200" })).toBe(2);
    expect(moved("plantstore_http_requests_total", { operation: "updatePlant", status: "412" })).toBe(1);
    for (const outcome of [
      "created",
      "replayed",
      "conflict",
      "updated",
      "unchanged",
      "precondition_failed",
      "deleted",
    ]) {
      expect(moved("plantstore_plant_outcomes_total", { outcome }), outcome).toBe(1);
    }
    expect(value(after, "plantstore_group_commit_batch_size")).toBeGreaterThanOrEqual(2);
    // Labels stay bounded: no path, id or token appears in any label value.
    const text = await (await call(server, METRICS, "GET", "/metrics")).text();
    expect(text).not.toContain("nowhere");
    expect(text).not.toContain(ALL);
  });
});
