import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@plantstore/server";

export const TEST_TOKEN = "t1";

export interface TestServer {
  url: string;
  /** The server's own storage, to check what an import really stored. */
  storage: RunningServer["storage"];
  /** A scratch directory for source files, removed on close. */
  directory: string;
  close(): Promise<void>;
}

/** The real server on an ephemeral port with a fresh SQLite file. */
export async function startTestServer(): Promise<TestServer> {
  const directory = mkdtempSync(join(tmpdir(), "plantstore-cli-"));
  const server = await startServer({
    port: 0,
    databaseUrl: `sqlite:${join(directory, "plants.db")}`,
    tokens: [TEST_TOKEN],
    logLevel: "silent",
  });
  return {
    url: server.url,
    storage: server.storage,
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
