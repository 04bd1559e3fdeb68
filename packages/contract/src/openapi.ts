import { generateSchema } from "@anatine/zod-openapi";
import { generateOpenApi } from "@ts-rest/open-api";
import type { ParameterObject, ReferenceObject } from "openapi3-ts";
import { plantStoreContract } from "./contract.js";
import { ErrorCode, errorCatalogue, statusOfErrorCode, type ErrorCodeName } from "./error.js";
import {
  COUNT_HEADER,
  INT64_MAX,
  INT64_MIN,
  LIST_COUNT_MAX,
  NAME_MAX_LENGTH,
  OUTCOME_HEADER,
  TAG_MAX_LENGTH,
} from "./plant.js";
import { SCOPES, type OperationMetadata } from "./scopes.js";
import { ETAG_HEADER } from "./conditional.js";
import { CHANGE_STREAM_CONTENT_TYPE } from "./changes.js";
import {
  PlantCreatedEvent,
  PlantDeletedEvent,
  PlantUpdatedEvent,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  type WebhookEventType,
} from "./webhooks.js";

/**
 * The OpenAPI documents for external consumers, generated from the contract: `openapi.json`
 * (OpenAPI 3.1.0) and `openapi-3.0.json` (the same API for tools that read only 3.0). ts-rest emits
 * 3.0 for the operations and their schemas; this module adds what ts-rest cannot express (headers,
 * examples, error codes, scopes, webhooks) and converts the result to 3.1.
 */
export const API_VERSION = "1.0.0";

type OperationId = keyof typeof plantStoreContract;
type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// What each operation can answer: statuses (from the contract), error codes, descriptions
// ---------------------------------------------------------------------------------------------

/** Codes every operation can answer (the gate, Node's HTTP parser, faults). */
const COMMON_CODES: ErrorCodeName[] = [
  "BAD_REQUEST",
  "MISSING_CREDENTIAL",
  "INVALID_CREDENTIAL",
  "MALFORMED_CREDENTIAL",
  "INSUFFICIENT_SCOPE",
  "REQUEST_TIMEOUT",
  "RATE_LIMITED",
  "HEADERS_TOO_LARGE",
  "INTERNAL",
  "STORAGE_UNAVAILABLE",
];

/** Codes only some operations answer: their input (body or parameters) and their outcomes. */
const OPERATION_CODES: Record<OperationId, ErrorCodeName[]> = {
  createPlant: [
    "MALFORMED_JSON",
    "VALIDATION_FAILED",
    "EMPTY_BODY",
    "ID_CONFLICT",
    "BODY_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "OUTCOME_UNKNOWN",
  ],
  streamPlantChanges: ["INVALID_PARAMETER"],
  getPlant: ["INVALID_PARAMETER", "PLANT_NOT_FOUND"],
  listPlants: ["INVALID_PARAMETER"],
  updatePlant: [
    "MALFORMED_JSON",
    "VALIDATION_FAILED",
    "EMPTY_BODY",
    "INVALID_PARAMETER",
    "PLANT_NOT_FOUND",
    "PRECONDITION_FAILED",
    "BODY_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "OUTCOME_UNKNOWN",
  ],
  deletePlant: ["INVALID_PARAMETER", "PLANT_NOT_FOUND", "PRECONDITION_FAILED", "OUTCOME_UNKNOWN"],
};

/** A message the server really sends with each code, for the examples. */
const EXAMPLE_MESSAGES: Record<ErrorCodeName, string> = {
  MALFORMED_JSON: "the body is not valid JSON: unexpected end of input at position 18",
  VALIDATION_FAILED: "name: must be at most 256 characters",
  EMPTY_BODY: "the body is empty; a JSON body is required",
  BAD_REQUEST: "the HTTP request is malformed",
  INVALID_PARAMETER: "id: must be a decimal integer from -9223372036854775808 to 9223372036854775807",
  MISSING_CREDENTIAL: "a bearer token is required",
  INVALID_CREDENTIAL: "the bearer token is not valid",
  MALFORMED_CREDENTIAL: "the Authorization header must be of the form: Bearer <token>",
  INSUFFICIENT_SCOPE: "the bearer token lacks the scope this operation needs: plants:write",
  NOT_FOUND: "no such resource: GET /plant",
  PLANT_NOT_FOUND: "no plant has id 7",
  METHOD_NOT_ALLOWED: "method PUT is not allowed here; allowed: GET, POST",
  REQUEST_TIMEOUT: "the body did not arrive within 10000 ms",
  ID_CONFLICT: "a plant with id 7 already exists with a different name or tag",
  PRECONDITION_FAILED: "plant 7 has changed since it was read: its ETag is not one If-Match names",
  BODY_TOO_LARGE: "the body is larger than 16384 bytes",
  UNSUPPORTED_MEDIA_TYPE: "the body must be application/json (UTF-8)",
  RATE_LIMITED: "rate limit of 100 requests per 1 s exceeded; retry after 1 s",
  HEADERS_TOO_LARGE: "the request headers are too large",
  INTERNAL: "internal error; see the server log for request 0b6f2c1e-4f7a-4c1e-9a53-3c9d2b7e8f10",
  STORAGE_UNAVAILABLE: "storage is unavailable; retry later",
  OUTCOME_UNKNOWN: "storage failed while committing; the write may have happened: retry it",
};

/** What each status means, per operation; statuses not listed here take the common meaning below. */
const RESPONSE_DESCRIPTIONS: Record<OperationId, Record<string, string>> = {
  createPlant: {
    200: "Plant response: the plant was created, or an identical create was replayed (see Plant-Store-Outcome). The id is not part of the body.",
    400: "The body is not valid JSON or not a valid NewPlant (the message names the field), or the HTTP request itself is malformed.",
    409: "A plant with this id already exists with a different name or tag; the stored plant is unchanged.",
  },
  streamPlantChanges: {
    200: "A stream of Server-Sent Events, one per committed change in commit order (`event:` the change's type, `data:` its webhook event's JSON, `id:` its cursor), `event: reset` when the cursor is older than what is kept, and comment heartbeats. It stays open until the client leaves, the token is revoked, the client reads too slowly, or the server shuts down.",
    400: "`after` or Last-Event-ID is not a cursor (a decimal integer from 0 to 2^63-1), a query parameter is unknown or repeated, or the HTTP request itself is malformed.",
  },
  getPlant: {
    200: "The stored plant, with its id; its ETag in the ETag header.",
    304: "If-None-Match named the plant's current ETag: the client's copy is current. No body.",
    400: "The id in the path is not a decimal int64, If-None-Match is not a list of entity tags, or the HTTP request itself is malformed.",
    404: "No plant has this id.",
  },
  listPlants: {
    200: "A page of stored plants in id order (ascending, or descending with order=desc), filtered by tag and name prefix when given; the Link header points to the next page when there is one, and with count=true the Plant-Store-Count header counts the matching plants.",
    400: "A query parameter is invalid, repeated or unknown (the message names it), or the HTTP request itself is malformed.",
  },
  updatePlant: {
    200: "The stored plant after the edit (or unchanged, when the body changed nothing), with its id; its ETag in the ETag header. Sent once the change is durable.",
    400: "The body is not valid JSON or not a valid PlantUpdate (the message names the field), the id in the path is not a decimal int64, If-Match is not a list of entity tags, or the HTTP request itself is malformed.",
    404: "No plant has this id (and If-Match was not sent). A PUT never creates a plant.",
    412: "If-Match named no ETag the plant has now (someone else changed it since it was read), or the plant does not exist; nothing was changed.",
  },
  deletePlant: {
    204: "The plant was deleted, durably. No body.",
    400: "The id in the path is not a decimal int64, If-Match is not a list of entity tags, or the HTTP request itself is malformed.",
    404: "No plant has this id (and If-Match was not sent).",
    412: "If-Match named no ETag the plant has now (someone else changed it since it was read), or the plant does not exist; nothing was deleted.",
  },
};

const COMMON_DESCRIPTIONS: Record<string, string> = {
  401: "The bearer credential is missing, malformed, unknown or revoked (see the WWW-Authenticate header).",
  403: "The token is valid but lacks the scope this operation needs (see the WWW-Authenticate header).",
  408: "The request (its headers, or its body) did not arrive within the server's timeout.",
  413: "The body is larger than the server's limit.",
  415: "The body is not application/json in UTF-8, or is content-encoded.",
  429: "The token is over its rate limit; retry after the Retry-After header's seconds.",
  431: "The request headers are larger than the server accepts; the connection is closed.",
  500: "Unexpected server error; no internals are disclosed (the server log has the details under the request id).",
  503: "Storage is unavailable; retry after the Retry-After header's seconds. STORAGE_UNAVAILABLE: nothing was changed. OUTCOME_UNKNOWN (writes only): storage failed while committing, so the write may have happened; a retry is safe, and its answer may be about this request's own effect.",
};

// ---------------------------------------------------------------------------------------------
// Response headers
// ---------------------------------------------------------------------------------------------

const header = (description: string, schema: Json) => ({ description, schema });
const text = (maxLength: number, pattern: string) => ({ type: "string", maxLength, pattern });
const seconds = { type: "integer", format: "int32", minimum: 0, maximum: 86_400 };

const HEADERS = {
  requestId: header(
    "The client's X-Request-Id when it is 1–128 characters of A–Z a–z 0–9 . _ : @ / + = -, else a generated UUID. Sent with every answer; the server's log line of the request carries it.",
    text(128, "^[A-Za-z0-9._:@/+=-]{1,128}$"),
  ),
  rateLimitPolicy: header(
    'IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers), sent when the server has a rate limit and the token is valid: the quota and window, e.g. `"default";q=100;w=1`.',
    text(64, '^"default";q=[0-9]{1,9};w=[0-9]{1,6}$'),
  ),
  rateLimit: header(
    'Sent when the server has a rate limit and the token is valid: requests remaining in the current window and seconds until it resets, e.g. `"default";r=99;t=1`.',
    text(64, '^"default";r=[0-9]{1,9};t=[0-9]{1,6}$'),
  ),
  retryAfter: header("Seconds to wait before retrying.", seconds),
  unauthorized: header(
    'RFC 6750 challenge: `Bearer realm="plantstore"`, with `error="invalid_token"` or `error="invalid_request"` when a credential was sent.',
    text(128, '^Bearer realm="plantstore"(, error="(invalid_token|invalid_request)")?$'),
  ),
  forbidden: header(
    'RFC 6750 challenge: `Bearer realm="plantstore", error="insufficient_scope", scope="<the scope needed>"`.',
    text(128, '^Bearer realm="plantstore", error="insufficient_scope", scope="[a-z:]{1,32}"$'),
  ),
  outcome: header("Whether this call created the plant or replayed an identical earlier create.", {
    type: "string",
    enum: ["created", "replayed"],
    maxLength: 8,
  }),
  etag: header(
    "The plant's strong entity tag (RFC 9110 §8.8.3): it changes whenever the plant's name or tag does. Send it back as If-Match to change the plant only if nobody else changed it since, or as If-None-Match to be answered 304 while it is current.",
    text(66, '^"[A-Za-z0-9_-]{1,64}"$'),
  ),
  nextPage: header(
    'RFC 8288: `</plants?limit=…&after=<last id>[&order=desc][&tag=…][&name=…][&count=true]>; rel="next"`, a relative reference to the next page, with the same query but `after` (values percent-encoded). Present only when more plants follow.',
    text(4096, '^</plants\\?[^>]{1,4070}>; rel="next"$'),
  ),
  count: header(
    `With count=true only: how many plants match the query's tag and name (on all pages), counted up to ${LIST_COUNT_MAX}: the exact number, or \`>${LIST_COUNT_MAX}\` when more match.`,
    text(5, `^(>${LIST_COUNT_MAX}|0|[1-9][0-9]{0,3})$`),
  ),
};

/** The headers of one answer: the request id always, rate-limit state on 2xx and 4xx, then by status. */
function headersOf(id: OperationId, status: string): Json {
  const byStatus: Record<string, Json> = {
    200:
      id === "createPlant"
        ? { [OUTCOME_HEADER]: HEADERS.outcome }
        : id === "listPlants"
          ? { Link: HEADERS.nextPage, [COUNT_HEADER]: HEADERS.count }
          : id === "streamPlantChanges"
            ? {}
            : { [ETAG_HEADER]: HEADERS.etag },
    304: { [ETAG_HEADER]: HEADERS.etag },
    401: { "WWW-Authenticate": HEADERS.unauthorized },
    403: { "WWW-Authenticate": HEADERS.forbidden },
    429: { "Retry-After": HEADERS.retryAfter },
    503: { "Retry-After": HEADERS.retryAfter },
  };
  // 401 and 431 are answered before a token is known, so no rate-limit state goes with them.
  const rateLimited =
    /^[234]/.test(status) && status !== "401" && status !== "431"
      ? { "RateLimit-Policy": HEADERS.rateLimitPolicy, RateLimit: HEADERS.rateLimit }
      : {};
  return { "X-Request-Id": HEADERS.requestId, ...rateLimited, ...byStatus[status] };
}

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

const catalogueTable = [
  "| error | HTTP status | name |",
  "|---|---|---|",
  ...errorCatalogue.map(({ code, status, name }) => `| ${code} | ${status} | ${name} |`),
].join("\n");

const DESCRIPTION = `A plant store interface: a client adds plants to the store, reads them back one by one or page by page, edits and deletes them; other systems can receive an event for every change (see the webhooks).

Every operation needs an HTTP bearer token (\`Authorization: Bearer <token>\`) with the scope the operation names: \`plants:read\` to read and list, \`plants:write\` to create, edit and delete.

Rules the service enforces:
- \`id\` is an exact signed 64-bit integer (-9223372036854775808 … 9223372036854775807): send it as a plain JSON integer, never as a string or fraction. Ids in every answer and every event are exact JSON integers too: **a consumer whose JSON parser rounds numbers above 2^53 (JavaScript's \`JSON.parse\`, for one) must read them losslessly** (e.g. a bigint-aware parser), or it will read a neighbouring id.
- \`name\` is 1–${NAME_MAX_LENGTH} and \`tag\` 1–${TAG_MAX_LENGTH} Unicode characters, well-formed, without control characters; \`tag\` may be omitted but not null.
- Unknown fields are refused (400), never silently dropped.
- Creating an id that exists: the same name and tag as the plant has now (after any edit) is an idempotent replay (200); anything else is 409 and the stored plant is unchanged.
- Editing (PUT) replaces the name and tag; a PUT that changes nothing writes nothing, so it is safe to repeat. Reads and edits answer a strong \`ETag\`: send it back as \`If-Match\` on PUT or DELETE so that a change someone else made since you read the plant is not overwritten (412 instead), and as \`If-None-Match\` on GET to be answered 304 while your copy is current.
- A 200 to a create or an edit and a 204 to a delete are sent only once the change is durably stored.

Every answer carries \`X-Request-Id\`. When the server has a rate limit, every answer to a valid token carries the IETF \`RateLimit-Policy\` and \`RateLimit\` headers.

Error codes (the \`error\` field of every Error body; its first three digits are the HTTP status):

${catalogueTable}`;

const SECURITY_SCHEME = "bearerAuth";

function scopeOf(id: OperationId): string {
  return (plantStoreContract[id].metadata as OperationMetadata).scope;
}

/** One response's example body. */
function errorExample(code: ErrorCodeName): Json {
  return { error: ErrorCode[code], message: EXAMPLE_MESSAGES[code] };
}

/** What a stream of changes looks like on the wire (the example of its 200). */
const CHANGE_STREAM_EXAMPLE = [
  "retry: 1000",
  "id: 41",
  "",
  "event: plant.updated",
  'data: {"type":"plant.updated","timestamp":"2026-11-22T10:15:30.123Z","version":"q1W3dd3b6mcOx2hV0kJ9Zw","data":{"id":7,"name":"Monstera deliciosa","tag":"indoor"},"sequence":"42"}',
  "id: 42",
  "",
  ": heartbeat",
  "",
  "",
].join("\n");

const SUCCESS_EXAMPLES: Record<OperationId, unknown> = {
  streamPlantChanges: CHANGE_STREAM_EXAMPLE,
  createPlant: { name: "Monstera deliciosa", tag: "indoor" },
  getPlant: { id: 7, name: "Monstera deliciosa", tag: "indoor" },
  listPlants: [
    { id: 7, name: "Monstera deliciosa", tag: "indoor" },
    { id: 9007199254740993n, name: "Ficus lyrata" },
  ],
  updatePlant: { id: 7, name: "Monstera deliciosa", tag: "indoor" },
  deletePlant: undefined,
};

function documentResponse(id: OperationId, status: string, response: Json): Json {
  const codes = [...OPERATION_CODES[id], ...COMMON_CODES].filter(
    (code) => String(statusOfErrorCode(ErrorCode[code])) === status,
  );
  const meaning = RESPONSE_DESCRIPTIONS[id][status] ?? COMMON_DESCRIPTIONS[status] ?? status;
  const description =
    codes.length === 0
      ? meaning
      : `${meaning} Error codes: ${codes.map((code) => `${ErrorCode[code]} ${code}`).join(", ")}.`;
  const content = response.content as Record<string, Json> | undefined;
  const example = codes.length > 0 ? errorExample(codes[0]!) : SUCCESS_EXAMPLES[id];
  // ts-rest documents every body as JSON; the stream's is text/event-stream (a text body).
  const media =
    id === "streamPlantChanges" && status === "200"
      ? {
          [CHANGE_STREAM_CONTENT_TYPE]: {
            schema: { type: "string", maxLength: 1_048_576, pattern: "^[\\s\\S]*$" },
            example,
          },
        }
      : { "application/json": { ...content?.["application/json"], example } };
  const streamed = id === "streamPlantChanges" && status === "200";
  return {
    description,
    headers: headersOf(id, status),
    ...(content === undefined && !streamed ? {} : { content: media }),
  };
}

/** The webhook events, as a path item each (the 3.1 `webhooks` map; `x-webhooks` in 3.0). */
function webhooks(): Json {
  const signatureHeaders = [
    {
      name: WEBHOOK_HEADERS.id,
      in: "header",
      required: true,
      description: "Unique per event, the same on every retry of it: de-duplicate on it.",
      schema: text(64, "^msg_[A-Za-z0-9]{1,60}$"),
    },
    {
      name: WEBHOOK_HEADERS.timestamp,
      in: "header",
      required: true,
      description: "Unix seconds of this attempt. Refuse a delivery more than a few minutes old or ahead.",
      schema: text(12, "^[0-9]{1,12}$"),
    },
    {
      name: WEBHOOK_HEADERS.signature,
      in: "header",
      required: true,
      description:
        'Standard Webhooks signatures: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, where the key is the base64-decoded part of the endpoint secret `whsec_<base64>`. Several space-separated signatures while a secret is rotated: accept the delivery when one matches.',
      schema: text(1024, "^v1,[A-Za-z0-9+/=]{1,88}( v1,[A-Za-z0-9+/=]{1,88}){0,9}$"),
    },
  ];
  const event = (type: WebhookEventType, { operationId, schema, summary } = WEBHOOK_OPERATIONS[type]) => ({
    post: {
      operationId,
      summary,
      description: `${summary} Sent to every endpoint subscribed to \`${type}\`, signed with its secret (Standard Webhooks), at least once: retried with backoff until a 2xx answer (410 Gone disables the endpoint).`,
      tags: ["webhooks"],
      security: [],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
      },
      responses: {
        "204": { description: "Any 2xx acknowledges the delivery; nothing is retried." },
        "410": { description: "Gone: the endpoint is disabled and receives nothing more until added again." },
      },
    },
  });
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, event(type)]));
}

/** Each event's webhook operation in the documents: its id, schema component and summary. */
const WEBHOOK_OPERATIONS: Record<WebhookEventType, { operationId: string; schema: string; summary: string }> = {
  "plant.created": {
    operationId: "plantCreatedWebhook",
    schema: "PlantCreatedEvent",
    summary: "A plant was added to the store (a create answered 200 created).",
  },
  "plant.updated": {
    operationId: "plantUpdatedWebhook",
    schema: "PlantUpdatedEvent",
    summary:
      "A plant was edited (a PUT answered 200 and changed it); data is the plant as it is after the edit. A PUT that changed nothing sends no event.",
  },
  "plant.deleted": {
    operationId: "plantDeletedWebhook",
    schema: "PlantDeletedEvent",
    summary: "A plant was deleted (a delete answered 204); data is the plant as it was.",
  },
};

/** An event schema with its plant as a reference to the StoredPlant component. */
function eventSchema(schema: typeof PlantCreatedEvent | typeof PlantUpdatedEvent | typeof PlantDeletedEvent): Json {
  const generated = generateSchema(schema) as Json & { properties: Json };
  return { ...generated, properties: { ...generated.properties, data: { $ref: "#/components/schemas/StoredPlant" } } };
}

/**
 * A header parameter under its usual spelling (`If-Match`): the contract names headers as Node
 * hands them over, in lower case, and header names are case-insensitive. Its description moves up
 * from its schema.
 */
function canonicalHeaderName(parameter: ParameterObject | ReferenceObject): ParameterObject | ReferenceObject {
  if (!("in" in parameter) || parameter.in !== "header") return parameter;
  const name = parameter.name.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
  // The description belongs to the parameter (as the path's id has it), not inside its schema.
  const { description, ...schema } = (parameter.schema ?? {}) as Json;
  return { ...parameter, name, ...(typeof description === "string" ? { description } : {}), schema };
}

/** The OpenAPI 3.0 variant, for tools that read only 3.0 (the webhooks are `x-webhooks`). */
export function generateOpenApi30Document(): Json {
  const document = generateOpenApi(
    plantStoreContract,
    {
      info: {
        title: "Plant Store",
        version: API_VERSION,
        description: DESCRIPTION,
        license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
        contact: { name: "Plant Store maintainers", url: "https://github.com/plantstore/plantstore" },
      },
      // Relative: the document talks to the server that served it, wherever it is deployed.
      servers: [
        {
          url: "/",
          description: "The server that serves this document (local or production).",
          // For external consumers: the whole API is public-facing (behind its bearer tokens).
          "x-internal": false,
        },
      ],
      tags: [
        { name: "plants", description: "Create, read, list and delete plants." },
        { name: "webhooks", description: "Events Plant Store sends to subscribed endpoints." },
      ],
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: "http",
            scheme: "bearer",
            description: `A Plant Store API token. Scopes: ${SCOPES.map((scope) => `\`${scope}\``).join(", ")}; each operation names the one it needs.`,
          },
        },
      },
      // The whole interface is secured (spec, Authentication rule 3).
      security: [{ [SECURITY_SCHEME]: [] }],
    },
    {
      setOperationId: true,
      operationMapper: (operation) => {
        const id = operation.operationId as OperationId;
        const responses = Object.fromEntries(
          Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => [
            status,
            documentResponse(id, status, response),
          ]),
        );
        return {
          ...operation,
          parameters: operation.parameters?.map(canonicalHeaderName),
          description: `${operation.description ?? ""} Needs the scope \`${scopeOf(id)}\`.`,
          tags: ["plants"],
          security: [{ [SECURITY_SCHEME]: [] }],
          requestBody: operation.requestBody ? { ...operation.requestBody, required: true } : undefined,
          responses,
        };
      },
    },
  ) as unknown as Json & { components: { schemas: Json } };
  document.components.schemas = {
    ...document.components.schemas,
    PlantCreatedEvent: eventSchema(PlantCreatedEvent),
    PlantUpdatedEvent: eventSchema(PlantUpdatedEvent),
    PlantDeletedEvent: eventSchema(PlantDeletedEvent),
  };
  return withInt64Bounds({ ...document, "x-webhooks": webhooks() });
}

/**
 * The OpenAPI 3.1.0 document: the 3.0 variant converted (JSON Schema 2020-12 types instead of
 * `nullable`, `examples` instead of `example` in schemas, `webhooks`), with each operation's scope
 * in its security requirement (3.1 allows role names for any scheme).
 */
export function generateOpenApi31Document(): Json {
  const { "x-webhooks": events, ...document } = generateOpenApi30Document();
  const converted = toJsonSchema2020(document) as Json & { paths: Record<string, Record<string, Json>> };
  for (const pathItem of Object.values(converted.paths)) {
    for (const operation of Object.values(pathItem)) {
      operation.security = [{ [SECURITY_SCHEME]: [scopeOf(operation.operationId as OperationId)] }];
    }
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    ...Object.fromEntries(Object.entries(converted).filter(([key]) => key !== "openapi")),
    webhooks: toJsonSchema2020(events),
  };
}

/**
 * Every `format: int64` schema gets the exact int64 bounds (bigints: serialized digit for digit); a
 * schema with a minimum of its own (a cursor's 0) keeps it.
 */
function withInt64Bounds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withInt64Bounds) as T;
  if (value === null || typeof value !== "object") return value;
  const isInt64 = (value as Json).type === "integer" && (value as Json).format === "int64";
  const ownMinimum = (value as Json).minimum;
  const entries = Object.entries(value).flatMap(([key, item]): Array<[string, unknown]> => {
    if (isInt64 && key === "minimum") return [];
    // The bounds go right after the format, where a reader looks for them.
    return isInt64 && key === "format"
      ? [
          [key, item],
          ["minimum", ownMinimum ?? INT64_MIN],
          ["maximum", INT64_MAX],
        ]
      : [[key, withInt64Bounds(item)]];
  });
  return Object.fromEntries(entries) as T;
}

/** OpenAPI 3.0 schema keywords → JSON Schema 2020-12 (OpenAPI 3.1), everywhere in a document part. */
function toJsonSchema2020(value: unknown, inSchema = false): unknown {
  if (Array.isArray(value)) return value.map((item) => toJsonSchema2020(item, inSchema));
  if (value === null || typeof value !== "object" || typeof value === "bigint") return value;
  const result: Json = {};
  for (const [key, item] of Object.entries(value as Json)) {
    // Below these keys, objects are schemas (or maps of them).
    const childIsSchema = inSchema || key === "schema" || key === "schemas";
    result[key] = toJsonSchema2020(item, childIsSchema && !(key === "example" || key === "examples"));
  }
  if (!inSchema) return result;
  if (result.nullable === true && typeof result.type === "string") result.type = [result.type, "null"];
  delete result.nullable;
  if ("example" in result) {
    result.examples = [result.example];
    delete result.example;
  }
  return result;
}

const INT64_LITERAL = /"\\u0000int64:(-?\d+)"/g;

/** The committed files' exact text: two-space indent, final newline, int64 bounds written exactly. */
export function serializeOpenApiDocument(document: Json): string {
  const json = JSON.stringify(
    document,
    (_key, item: unknown) => (typeof item === "bigint" ? `\u0000int64:${item}` : item),
    2,
  );
  return `${json.replace(INT64_LITERAL, "$1")}\n`;
}
