import { afterAll, beforeAll, expect } from "vitest";
import type { PlantStoreClientOptions } from "../client.js";
import { createPlantStoreClient } from "../node.js";
import { PlantStoreError } from "../plant-store-error.js";
import { startFlakyProxy, type FlakyProxy, type ProxyFault } from "../testing.js";
import { startTestServer, TEST_TOKEN, type TestServer } from "./test-server.js";

/** Short backoff, so that retried tests stay quick; no test depends on how long a wait lasts. */
export const fastRetry = { baseDelayMs: 5, maxDelayMs: 20 };

/** A real server for the test file (started before its tests, closed after them). */
export function useTestServer(): { readonly server: TestServer } {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server() {
      if (server === undefined) throw new Error("the test server is not started (use it inside a test)");
      return server;
    },
  };
}

export function clientFor(baseUrl: string, overrides: Partial<PlantStoreClientOptions> = {}) {
  return createPlantStoreClient({ baseUrl, token: TEST_TOKEN, retry: fastRetry, ...overrides });
}

/** The PlantStoreError the promise rejects with (fails the test if it resolves or throws anything else). */
export async function failureOf(promise: Promise<unknown>): Promise<PlantStoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlantStoreError);
  return error as PlantStoreError;
}

/** Runs `run` with a flaky proxy in front of `targetUrl`, closed afterwards. */
export async function withProxy<T>(
  targetUrl: string,
  faults: ProxyFault[],
  run: (url: string, proxy: FlakyProxy) => Promise<T>,
): Promise<T> {
  const proxy = await startFlakyProxy(targetUrl, faults);
  try {
    return await run(proxy.url, proxy);
  } finally {
    await proxy.close();
  }
}
