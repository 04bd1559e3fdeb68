import { ChangeFeed } from "../src/changes/change-feed.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode } from "@plantstore/contract";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createPipeline } from "../src/http/pipeline.js";
import { createLogger } from "../src/logger.js";
import { Metrics } from "../src/metrics.js";
import { openStorage } from "../src/store/open-storage.js";
import { StorageUnavailableError, type Storage } from "../src/store/storage.js";
import { sqliteBackend } from "../src/test-support/databases.js";
import { TOKEN } from "../src/test-support/test-server.js";
import { TokenVerifier } from "../src/tokens/token-verifier.js";

/**
 * A fault in any step of the request path is answered with a JSON Error (500, or 503 for storage
 * out of reach) and the server keeps serving. Each test puts a fault into one real dependency of
 * one step (the storage, the token verifier) and drives the real pipeline over HTTP.
 */
const backend = sqliteBackend();
const logger = createLogger("silent");
const running: Array<{ server: Server; storage: Storage; verifier: TokenVerifier }> = [];

afterEach(async () => {
  for (const { server, storage, verifier } of running.splice(0)) {
    await new Promise((resolve) => server.close(resolve));
    verifier.stop();
    await storage.close();
  }
});
afterAll(() => backend.cleanup());

interface Faults {
  storage?: (storage: Storage) => Storage;
  verifier?: (verifier: TokenVerifier) => TokenVerifier;
  corsOrigins?: string[];
}

async function serve(faults: Faults): Promise<string> {
  const storage = await openStorage(await backend.freshDatabaseUrl(), {
    poolMax: 1,
    connectionTimeoutMs: 1_000,
    idleTimeoutMs: 1_000,
    logger,
  });
  const verifier = new TokenVerifier([TOKEN], storage.tokens, logger);
  await verifier.start();
  const metrics = new Metrics();
  const served = faults.storage?.(storage) ?? storage;
  const pipeline = createPipeline({
    storage: served,
    changes: new ChangeFeed(
      served.changes,
      { pollMs: 100, heartbeatMs: 15_000, bufferBytes: 1 << 20, retentionMs: 3_600_000 },
      logger,
      metrics,
    ),
    tokens: faults.verifier?.(verifier) ?? verifier,
    limiter: undefined,
    logger,
    metrics,
    bodyLimitBytes: 16_384,
    bodyTimeoutMs: 5_000,
    corsOrigins: faults.corsOrigins ?? [],
    isShuttingDown: () => false,
  });
  const server = createServer(pipeline.serverOptions, pipeline.handleRequest);
  server.on("clientError", pipeline.handleParserError);
  running.push({ server, storage, verifier });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const create = (url: string, id: number) =>
  fetch(`${url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ id, name: "Fern" }),
    // A fault that escaped would leave the request unanswered: fail fast instead of hanging.
    signal: AbortSignal.timeout(10_000),
  });

/** The plants repository of `storage`, with `create` replaced. */
function withCreate(create: Storage["plants"]["create"]) {
  return (storage: Storage): Storage => ({
    ...storage,
    ping: () => storage.ping(),
    plants: { ...storage.plants, create },
  });
}

async function expectFault(response: Response, status: number, code: number): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(response.headers.get("x-request-id")).toEqual(expect.any(String));
  const body = (await response.json()) as { error: number; message: string };
  expect(body).toEqual({ error: code, message: expect.any(String) });
  expect(body.message).not.toMatch(/boom|at \S+:\d+/); // no internals, no stack trace
}

describe("a fault in a step of the request path", () => {
  it.each([
    [
      "the handler throws",
      () => {
        throw new TypeError("boom");
      },
    ],
    ["the handler's promise rejects", () => Promise.reject(new TypeError("boom"))],
  ])("is a JSON 500 when %s, and the server keeps serving", async (_case, failing) => {
    let calls = 0;
    const url = await serve({
      storage: (storage) => withCreate((plant) => (++calls === 1 ? failing() : storage.plants.create(plant)))(storage),
    });
    await expectFault(await create(url, 1), 500, ErrorCode.INTERNAL);
    expect((await create(url, 2)).status).toBe(200);
  });

  it("is a JSON 503 with Retry-After when storage is out of reach", async () => {
    const url = await serve({
      storage: withCreate(() => Promise.reject(new StorageUnavailableError("database is down"))),
    });
    const response = await create(url, 1);
    expect(response.headers.get("retry-after")).toBe("2");
    await expectFault(response, 503, ErrorCode.STORAGE_UNAVAILABLE);
  });

  it("is answered with the CORS headers of an allowed origin (500 and 503 alike)", async () => {
    const origin = "https://app.example.com";
    let calls = 0;
    const url = await serve({
      corsOrigins: [origin],
      storage: withCreate(() =>
        Promise.reject(++calls === 1 ? new TypeError("boom") : new StorageUnavailableError("database is down")),
      ),
    });
    for (const status of [500, 503]) {
      const response = await fetch(`${url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", origin },
        body: JSON.stringify({ id: 1, name: "Fern" }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(status);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("access-control-expose-headers")).toMatch(/Retry-After/);
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  it.each([
    [
      "throws",
      (): never => {
        throw new TypeError("boom");
      },
    ],
    ["rejects", (): Promise<never> => Promise.reject(new TypeError("boom"))],
  ])("is a JSON 500 when the gate's token check %s, and the server keeps serving", async (_case, failing) => {
    let calls = 0;
    const url = await serve({
      verifier: (verifier) =>
        Object.assign(Object.create(verifier) as TokenVerifier, {
          verify: (token: string) => (++calls === 1 ? failing() : verifier.verify(token)),
        }),
    });
    await expectFault(await create(url, 1), 500, ErrorCode.INTERNAL);
    expect((await create(url, 2)).status).toBe(200);
  });

  it("is a JSON 500 when the readiness probe's storage check rejects", async () => {
    const url = await serve({
      storage: (storage) => ({ ...storage, ping: () => Promise.reject(new TypeError("boom")) }),
    });
    await expectFault(await fetch(`${url}/readyz`), 500, ErrorCode.INTERNAL);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
