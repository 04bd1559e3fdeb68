import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterAll, beforeAll } from "vitest";

export const TEST_TOKEN = "cli-test-token-0123456789abcdefghij";

export type TestServer = DisposableServer;

/** The real server on an ephemeral port with a fresh SQLite file (its directory holds test sources too). */
export function startTestServer(): Promise<TestServer> {
  return startDisposableServer({ tokens: [TEST_TOKEN], prefix: "plantstore-cli-" });
}

export interface TestServerContext {
  /** The running server (inside a test). */
  readonly server: TestServer;
  /** The environment that points the command at this server with a valid token. */
  env(): Record<string, string>;
}

/** A real server for the test file: started before its tests, closed after them. */
export function useTestServer(): TestServerContext {
  let server: TestServer | undefined;
  // Deadlines for a hang, not a speed: with both cores busy a start took past vitest's 10 s.
  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  }, 120_000);
  const running = (): TestServer => {
    if (server === undefined) throw new Error("the test server is not started (use it inside a test)");
    return server;
  };
  return {
    get server() {
      return running();
    },
    env: () => ({ PLANTSTORE_URL: running().url, PLANTSTORE_TOKEN: TEST_TOKEN }),
  };
}
