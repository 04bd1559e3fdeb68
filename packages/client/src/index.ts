export {
  createPlantStoreClient,
  DEFAULT_TIMEOUT_MS,
  type CallOptions,
  type CreateOutcome,
  type CreatePlantResult,
  type DeleteOutcome,
  type DeletePlantResult,
  type ListPlantsOptions,
  type PlantIdInput,
  type PlantPage,
  type PlantsOptions,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from "./client.js";
export {
  isPlantStoreError,
  PlantStoreError,
  type PlantStoreErrorInit,
  type PlantStoreErrorKind,
} from "./plant-store-error.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type ReceivedWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from "./webhook-receiver.js";
export { DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, type RetryOptions } from "./retry-policy.js";
export {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  type NewPlantInput,
  type Plant,
  type StoredPlant,
} from "@plantstore/contract";
