/**
 * `@plantstore/client` under Node (the package's `node` export condition): the API of index.ts,
 * with node:http(s) keep-alive connections as the default transport, about a quarter of the CPU
 * of Node's built-in `fetch` per request (node-transport.ts). A `fetch` option still wins.
 */
import { createClientWith, type PlantStoreClient, type PlantStoreClientOptions } from "./client.js";
import { nodeHttpTransport } from "./node-transport.js";

export * from "./index.js";

/** A client of the Plant Store at `options.baseUrl`, sending with node:http by default. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  return createClientWith(options, nodeHttpTransport);
}
