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
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
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
