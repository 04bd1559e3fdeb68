import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";

export const TEST_TOKEN = "client-test-token-0123456789abcdef";

export type TestServer = DisposableServer;

/** The real server on an ephemeral port with a fresh SQLite file. */
export function startTestServer(): Promise<TestServer> {
  return startDisposableServer({ tokens: [TEST_TOKEN], prefix: "plantstore-client-" });
}
