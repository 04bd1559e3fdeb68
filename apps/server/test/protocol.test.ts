import { request } from "node:http";
import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { API_VERSION, ErrorCode } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";

const backend = sqliteBackend();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl(), bodyTimeoutMs: 300 });
});
afterAll(async () => {
  await server?.close();
  await backend.cleanup();
});

/** Raw bytes over TCP, for requests fetch would refuse to send. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(bytes));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer; got ${answer}`)));
  });
}

describe("every answer", () => {
  it("carries the security headers and a request id, and no X-Powered-By", async () => {
    const response = await server.post({ id: 1, name: "a" });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-powered-by")).toBeNull();
  });

  it("says the contract's version in API-Version, refusals, unknown paths, probes and documents included", async () => {
    const answers = [
      await server.post({ id: 1, name: "a" }),
      await fetch(`${server.url}/plants/1`), // no token: 401
      await server.call("GET", "/plantz"), // 404
      await server.call("PATCH", "/plants/1"), // 405
      await fetch(`${server.url}/healthz`),
      await fetch(`${server.url}/openapi.json`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 405, 200, 200]);
    for (const answer of answers) expect(answer.headers.get("api-version"), answer.url).toBe(API_VERSION);
    const document = (await answers[5]!.json()) as { info: { version: string } };
    expect(document.info.version).toBe(API_VERSION);
  });

  it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
    const sane = await server.post({ id: 2, name: "a" }, { "x-request-id": "req-123.abc" });
    expect(sane.headers.get("x-request-id")).toBe("req-123.abc");
    const unsafe = await server.post({ id: 3, name: "a" }, { "x-request-id": "bad id with spaces" });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("routing", () => {
  it("answers an unknown path with a JSON 404", async () => {
    const response = await fetch(`${server.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: ErrorCode.NOT_FOUND, message: "no such resource: GET /nope" });
  });

  it.each([
    ["PUT", "/plants", "GET, POST"],
    ["PATCH", "/plants", "GET, POST"],
    ["DELETE", "/plants", "GET, POST"],
    ["OPTIONS", "/plants", "GET, POST"],
    ["POST", "/plants/1", "GET, PUT, DELETE"],
    ["PATCH", "/plants/1", "GET, PUT, DELETE"],
    ["OPTIONS", "/plants/1", "GET, PUT, DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(await response.json()).toEqual({ error: ErrorCode.METHOD_NOT_ALLOWED, message: expect.any(String) });
  });

  it("answers a malformed %-escape in the path with JSON", async () => {
    const response = await fetch(`${server.url}/plants/%E0%A4%A`, { method: "POST" });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await response.json()).toEqual({ error: expect.any(Number), message: expect.any(String) });
  });
});

describe("probes and the document", () => {
  it("GET /healthz and /readyz need no token", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: "ready", storage: "sqlite" });
  });

  it.each([
    ["/openapi.json", "openapi.json", "3.1.0"],
    ["/openapi-3.0.json", "openapi-3.0.json", "3.0.2"],
  ])("GET %s serves the committed %s byte for byte (OpenAPI %s), with no token", async (path, file, version) => {
    const committed = readFileSync(new URL(`../../../packages/contract/${file}`, import.meta.url), "utf8");
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await response.text();
    expect(text).toBe(committed);
    expect(text).toContain(`"openapi": "${version}"`);
    expect(text).toContain('"maximum": 9223372036854775807');
  });
});

describe("the docs page, without a browser", () => {
  it("GET /docs: an HTML page with a strict Content-Security-Policy, no token needed", async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/unsafe-eval|unsafe-inline|https?:/);
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style>|https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map(([, path]) => path!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const path of assets) {
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status, path).toBe(200);
      await asset.arrayBuffer();
    }
  });

  it("serves only the page's own assets, for good, and answers anything else with the JSON 404", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    const bundle = /src="(\/docs\/assets\/[^"]+\/swagger-ui-bundle\.js)"/.exec(html)?.[1];
    const asset = await fetch(`${server.url}${bundle}`);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    await asset.arrayBuffer();
    for (const path of [bundle!.replace("swagger-ui-bundle.js", "package.json"), "/docs/assets/0.0.0/swagger-ui.css"]) {
      const refused = await fetch(`${server.url}${path}`);
      expect(refused.status, path).toBe(404);
      expect(await refused.json()).toMatchObject({ error: ErrorCode.NOT_FOUND });
    }
  });
});

describe("malformed HTTP", () => {
  it("answers garbage with a JSON 400", async () => {
    const answer = await raw("GARBAGE\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`{"error":${ErrorCode.BAD_REQUEST},`);
  });

  it.each([
    ["a control byte in a header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n", 400],
    ["oversized headers", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
  ])("answers %s with the headers every answer carries", async (_case, bytes, status) => {
    const answer = await raw(bytes);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(answer).toContain("\r\nCache-Control: no-store\r\n");
    expect(answer).toContain("\r\nX-Content-Type-Options: nosniff\r\n");
    expect(answer).toContain(`\r\nAPI-Version: ${API_VERSION}\r\n`);
    expect(answer).toContain("\r\nContent-Type: application/json; charset=utf-8\r\n");
  });

  it("answers oversized headers with a JSON 431", async () => {
    const answer = await raw(`POST /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain(`{"error":${ErrorCode.HEADERS_TOO_LARGE},`);
  });

  it("answers a body that stops arriving with a JSON 408", async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": "100" },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      });
      req.on("error", reject);
      req.write('{"id": 1,'); // …and nothing more
    });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: ErrorCode.REQUEST_TIMEOUT, message: expect.any(String) });
  });
});
