export { plantStoreContract, type PlantStoreContract } from "./contract.js";
export {
  ETAG_HEADER,
  IfMatchHeader,
  IfNoneMatchChangeHeader,
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
  COUNT_HEADER,
  countHeaderValue,
  INT64_MAX,
  INT64_MIN,
  hasLoneSurrogate,
  LIST_LIMIT_DEFAULT,
  LIST_COUNT_MAX,
  LIST_LIMIT_MAX,
  LIST_ORDERS,
  ListPlantsQuery,
  parseCountHeader,
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
  type ListOrder,
  type ListPlantsQueryInput,
  type NewPlantInput,
} from "./plant.js";
export {
  docsLinkOf,
  deprecatedSchema,
  deprecation,
  deprecationHeaders,
  MIN_SUNSET_MONTHS,
  type Deprecation,
} from "./deprecation.js";
export { API_VERSION, API_VERSION_HEADER } from "./version.js";
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
