import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";

export const TEST_TOKEN = "cli-test-token-0123456789";

export type TestServer = DisposableServer;

/** The real server on an ephemeral port with a fresh SQLite file (its directory holds test sources too). */
export function startTestServer(): Promise<TestServer> {
  return startDisposableServer({ tokens: [TEST_TOKEN], prefix: "plantstore-cli-" });
}
