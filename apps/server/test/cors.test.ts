import { connect } from "node:net";
import { ErrorCode } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";

const APP = "https://app.example.com";
const OTHER = "https://evil.example.com";
const READ_ONLY_TOKEN = "read-only-token-0123456789abcdefghijklmn";

const EXPOSED = [
  "Link",
  "X-Request-Id",
  "Plant-Store-Outcome",
  "Plant-Store-Count",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "WWW-Authenticate",
  "ETag",
];

/** A browser's preflight: OPTIONS with Origin and the method (and headers) the page wants to use. */
function preflight(server: TestServer, path: string, origin: string, method = "POST"): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type",
    },
  });
}

/** What an allowed origin's page may read of every answer: the allowing headers, never credentials. */
function expectAllowed(response: Response, origin = APP): void {
  expect(response.headers.get("access-control-allow-origin")).toBe(origin);
  expect(response.headers.get("access-control-expose-headers")?.split(/,\s*/)).toEqual(EXPOSED);
  expect(response.headers.get("vary")).toBe("Origin");
  expect(response.headers.get("access-control-allow-credentials")).toBeNull();
}

function corsHeadersOf(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));
}

/** Raw bytes over TCP, for a request Node's HTTP parser refuses. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer; got ${answer}`)));
  });
}

describe.each(testBackends())("CORS on $name", (backend) => {
  describe("with PLANTSTORE_CORS_ORIGINS set", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({
        databaseUrl: await backend.freshDatabaseUrl(),
        tokens: [TOKEN, `${READ_ONLY_TOKEN}:plants:read`],
        corsOrigins: [APP, "http://127.0.0.1:5173"],
        rateLimit: { quota: 1000, windowSeconds: 60 },
      });
    });
    afterAll(() => server?.close());

    const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", origin: APP, ...headers },
        body,
      });

    it("answers an allowed origin's preflight with 204, the path's methods and the headers a page sends, no token needed", async () => {
      const collection = await preflight(server, "/plants", APP);
      expect(collection.status).toBe(204);
      expectAllowed(collection);
      expect(collection.headers.get("access-control-allow-methods")).toBe("GET, POST");
      const allowedHeaders = collection.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/);
      expect(allowedHeaders).toEqual(expect.arrayContaining(["authorization", "content-type", "x-request-id"]));
      expect(allowedHeaders).not.toContain("*");
      expect(Number(collection.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(collection.headers.get("x-request-id")).toEqual(expect.any(String));
      expect(await collection.text()).toBe("");

      const one = await preflight(server, "/plants/9223372036854775807", "http://127.0.0.1:5173", "DELETE");
      expect(one.status).toBe(204);
      expectAllowed(one, "http://127.0.0.1:5173");
      expect(one.headers.get("access-control-allow-methods")).toBe("GET, PUT, DELETE");
    });

    it("answers a preflight to a path no route has with the JSON 404, still readable by the page", async () => {
      const response = await preflight(server, "/nowhere", APP);
      expect(response.status).toBe(404);
      expectAllowed(response);
      expect(await response.json()).toMatchObject({ error: ErrorCode.NOT_FOUND });
    });

    it("gives another origin's preflight no CORS header: it is routed as any OPTIONS (405)", async () => {
      for (const origin of [OTHER, "https://app.example.com.evil.example", "null", "https://APP.example.com"]) {
        const response = await preflight(server, "/plants", origin);
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, POST");
        expect(corsHeadersOf(response)).toEqual([]);
        expect(response.headers.get("vary")).toBe("Origin");
      }
    });

    it("lets the page read every answer and its headers: successes, Link, the create's outcome", async () => {
      const id = 9_007_199_254_740_993n;
      const created = await call("POST", "/plants", {}, `{"id":${id},"name":"Fern","tag":"cors"}`);
      expect(created.status).toBe(200);
      expectAllowed(created);
      expect(created.headers.get("plant-store-outcome")).toBe("created");
      expect(created.headers.get("ratelimit")).toEqual(expect.any(String));
      await call("POST", "/plants", {}, `{"id":${id + 1n},"name":"Ivy","tag":"cors"}`);

      const page = await call("GET", "/plants?tag=cors&limit=1");
      expect(page.status).toBe(200);
      expectAllowed(page);
      expect(page.headers.get("link")).toMatch(/rel="next"/);
      const read = await call("GET", `/plants/${id}`);
      expect(await read.text()).toContain(`"id":${id}`);
      expectAllowed(read);
      const deleted = await call("DELETE", `/plants/${id}`);
      expect(deleted.status).toBe(204);
      expectAllowed(deleted);
    });

    it.each([
      ["401 (no token)", () => call("GET", "/plants", { authorization: "" }), 401],
      [
        "403 (a token without the scope)",
        () => call("DELETE", "/plants/1", { authorization: `Bearer ${READ_ONLY_TOKEN}` }),
        403,
      ],
      ["404 (no such plant)", () => call("GET", "/plants/424242"), 404],
      ["404 (no such path)", () => call("GET", "/nowhere"), 404],
      ["405 (another method)", () => call("PATCH", "/plants"), 405],
      ["400 (malformed JSON)", () => call("POST", "/plants", {}, '{"id":'), 400],
      ["400 (validation)", () => call("POST", "/plants", {}, '{"id":1,"name":""}'), 400],
      ["415 (not JSON)", () => call("POST", "/plants", { "content-type": "text/plain" }, "x"), 415],
    ])("lets the page read a refusal: %s", async (_case, send, status) => {
      const response = await send();
      expect(response.status).toBe(status);
      expectAllowed(response);
      expect(await response.json()).toMatchObject({ error: expect.any(Number), message: expect.any(String) });
      if (status === 401) expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("lets the page read a 409 conflict", async () => {
      await call("POST", "/plants", {}, '{"id":77,"name":"Fern"}');
      const response = await call("POST", "/plants", {}, '{"id":77,"name":"Ivy"}');
      expect(response.status).toBe(409);
      expectAllowed(response);
    });

    it("lets the page read a 429 and how long to wait", async () => {
      const limited = await startTestServer({
        databaseUrl: await backend.freshDatabaseUrl(),
        corsOrigins: [APP],
        rateLimit: { quota: 1, windowSeconds: 3600 },
      });
      try {
        const send = () =>
          fetch(`${limited.url}/plants`, { headers: { authorization: `Bearer ${TOKEN}`, origin: APP } });
        expect((await send()).status).toBe(200);
        const refused = await send();
        expect(refused.status).toBe(429);
        expectAllowed(refused);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });

    it("puts them on the parser's refusals too, when the raw request shows an allowed Origin", async () => {
      const answer = await raw(
        server.port,
        `GET /plants HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nX-Bad: a\u0001b\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(new RegExp(`\r\nAccess-Control-Allow-Origin: ${APP}\r\n`, "i"));
      expect(answer).toMatch(/\r\nAccess-Control-Expose-Headers: Link, /i);
      expect(answer).toMatch(/\r\nVary: Origin\r\n/i);
      const other = await raw(
        server.port,
        `GET /plants HTTP/1.1\r\nHost: x\r\nOrigin: ${OTHER}\r\nX-Bad: a\u0001b\r\n\r\n`,
      );
      expect(other).toMatch(/^HTTP\/1\.1 400 /);
      expect(other).not.toMatch(/Access-Control-/i);
    });

    it("gives another origin's requests no CORS header (the browser then hides the answer), and varies on Origin", async () => {
      for (const headers of [{ origin: OTHER }, { origin: "" }]) {
        const response = await call("GET", "/plants", headers);
        expect(response.status).toBe(200);
        expect(corsHeadersOf(response)).toEqual([]);
        expect(response.headers.get("vary")).toBe("Origin");
      }
    });
  });

  describe("without PLANTSTORE_CORS_ORIGINS (the default)", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });
    });
    afterAll(() => server?.close());

    it("sends no CORS header and no Vary, and a preflight is the OPTIONS it always was (405)", async () => {
      const answered = await preflight(server, "/plants", APP);
      expect(answered.status).toBe(405);
      expect(answered.headers.get("allow")).toBe("GET, POST");
      expect(corsHeadersOf(answered)).toEqual([]);
      expect(answered.headers.get("vary")).toBeNull();
      const read = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${TOKEN}`, origin: APP } });
      expect(read.status).toBe(200);
      expect(corsHeadersOf(read)).toEqual([]);
      expect(read.headers.get("vary")).toBeNull();
    });
  });
});
