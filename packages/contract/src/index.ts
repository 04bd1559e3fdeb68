export { plantStoreContract, type PlantStoreContract } from "./contract.js";
export {
  ETAG_HEADER,
  IfMatchHeader,
  IfNoneMatchHeader,
  parseEntityTags,
  quoteEntityTag,
  type EntityTags,
} from "./conditional.js";
export {
  ErrorBody,
  ErrorCode,
  ERROR_MESSAGE_MAX_LENGTH,
  errorCatalogue,
  statusOfErrorCode,
  type ErrorCodeName,
  type ErrorCodeValue,
} from "./error.js";
export {
  INT64_MAX,
  INT64_MIN,
  hasLoneSurrogate,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  ListPlantsQuery,
  NAME_MAX_LENGTH,
  OUTCOME_HEADER,
  NewPlant,
  Plant,
  PlantId,
  PlantIdPath,
  PlantName,
  PlantTag,
  PlantUpdate,
  StoredPlant,
  TAG_MAX_LENGTH,
  type NewPlantInput,
} from "./plant.js";
export { isScope, SCOPES, type OperationMetadata, type Scope } from "./scopes.js";
export {
  isWebhookEventType,
  PlantCreatedEvent,
  PlantDeletedEvent,
  PlantUpdatedEvent,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WebhookEvent,
  EVENT_BODY_END,
  eventWithSequence,
  webhookEventHead,
  type WebhookEventType,
} from "./webhooks.js";
export {
  CHANGE_STREAM_CONTENT_TYPE,
  ChangeCursor,
  ChangeStreamHeaders,
  ChangeStreamQuery,
  ChangeStreamReset,
  LAST_EVENT_ID_HEADER,
  RESET_EVENT,
} from "./changes.js";
export {
  MalformedJsonError,
  MAX_ID_LITERAL_LENGTH,
  MAX_JSON_DEPTH,
  parseExactJson,
  stringifyExactJson,
} from "./exact-json.js";
