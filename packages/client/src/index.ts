export {
  createPlantStoreClient,
  DEFAULT_TIMEOUT_MS,
  type CallOptions,
  type CreateOutcome,
  type CreatePlantResult,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from "./client.js";
export {
  isPlantStoreError,
  PlantStoreError,
  type PlantStoreErrorInit,
  type PlantStoreErrorKind,
} from "./plant-store-error.js";
export { DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, type RetryOptions } from "./retry-policy.js";
export type { NewPlantInput, Plant } from "@plantstore/contract";
