import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@plantstore/server";

export const TEST_TOKEN = "t1";

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** The real server on an ephemeral port with a fresh SQLite file. */
export async function startTestServer(): Promise<TestServer> {
  const directory = mkdtempSync(join(tmpdir(), "plantstore-client-"));
  const server = await startServer({
    port: 0,
    databaseUrl: `sqlite:${join(directory, "plants.db")}`,
    tokens: [TEST_TOKEN],
    logLevel: "silent",
  });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
