import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PlantStoreContract } from "@plantstore/contract";
import type { Config } from "./config.js";
import { startServer, type RunningServer } from "./server.js";

export interface DisposableServer {
  url: string;
  /** The server's own storage, to check what a test really stored. */
  storage: RunningServer["storage"];
  /** A scratch directory (it holds the database), removed on close. */
  directory: string;
  close(): Promise<void>;
}

/**
 * The real server on an ephemeral port with a fresh SQLite file, for the tests of sibling
 * packages (`@plantstore/server/testing`): each gets the real thing, started the same way.
 */
export async function startDisposableServer(options: {
  tokens: string[];
  prefix?: string;
  /** Any other setting, e.g. webhook endpoints (`webhookUrls`, `webhookSecret`) or rate limits. */
  config?: Partial<Config>;
  /** A variant of the contract to serve (a test's, with an operation deprecated); Plant Store's by default. */
  contract?: PlantStoreContract;
}): Promise<DisposableServer> {
  const directory = mkdtempSync(join(tmpdir(), options.prefix ?? "plantstore-"));
  const server = await startServer(
    {
      port: 0,
      databaseUrl: `sqlite:${join(directory, "plants.db")}`,
      tokens: options.tokens,
      logLevel: "silent",
      ...options.config,
    },
    { contract: options.contract },
  );
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
