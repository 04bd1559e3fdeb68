import { createPlantStoreClient, type PlantStoreClient } from "@plantstore/client";
import { UsageError } from "./usage-error.js";

/** The options every command shares (set on the program, given before or after the command). */
export interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
  timeout: number;
}

export function clientFor(options: GlobalOptions): PlantStoreClient {
  if (options.token === undefined || options.token === "") {
    throw new UsageError("no API token: set PLANTSTORE_TOKEN (or pass --token)");
  }
  try {
    return createPlantStoreClient({ baseUrl: options.url, token: options.token, timeoutMs: options.timeout });
  } catch (error) {
    throw new UsageError(`--url: ${(error as Error).message}`);
  }
}
