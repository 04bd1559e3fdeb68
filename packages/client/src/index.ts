/**
 * `@plantstore/client` for browsers, workers, Deno, Bun and any runtime with a global `fetch`: no
 * Node built-in is imported from here, so bundlers (esbuild, Vite; platform browser) take it as is.
 * Under Node the package's `node` export condition selects node.ts instead: the same API, with
 * node:http keep-alive connections as the default transport. Webhook verification, which needs
 * node:crypto, is the `@plantstore/client/webhooks` entry.
 */
import { createClientWith, type PlantStoreClient, type PlantStoreClientOptions } from "./client.js";
import { globalFetchTransport } from "./transport.js";

/** A client of the Plant Store at `options.baseUrl`, sending with the global `fetch` by default. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  return createClientWith(options, globalFetchTransport);
}

export {
  DEFAULT_TIMEOUT_MS,
  type CallOptions,
  type ConditionalCallOptions,
  type CreateOutcome,
  type CreatePlantResult,
  type DeleteOutcome,
  type DeletePlantResult,
  type ListPlantsOptions,
  type PlantCount,
  type PlantIdInput,
  type PlantPage,
  type PlantsOptions,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type UpdateOutcome,
  type UpdatePlantResult,
  type VersionedPlant,
} from "./client.js";
export {
  isPlantStoreError,
  PlantStoreError,
  type PlantStoreErrorInit,
  type PlantStoreErrorKind,
} from "./plant-store-error.js";
export { DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, type RetryOptions } from "./retry-policy.js";
export {
  type PlantChange,
  type PlantChangeEvent,
  type PlantChangeKind,
  type PlantChangeReset,
  type WatchPlantsOptions,
  type WatchState,
} from "./watch.js";
export { ServerSentEventParser, type ServerSentEvent } from "./server-sent-events.js";
export {
  LIST_COUNT_MAX,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  type ListOrder,
  type NewPlantInput,
  type Plant,
  type PlantUpdate,
  type StoredPlant,
} from "@plantstore/contract";
