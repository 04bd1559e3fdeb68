import { generateOpenApi } from "@ts-rest/open-api";
import { plantStoreContract } from "./contract.js";
import { errorCatalogue } from "./error.js";
import { NAME_MAX_LENGTH, OUTCOME_HEADER, TAG_MAX_LENGTH } from "./plant.js";

export const API_VERSION = "1.0.0";

type OperationId = keyof typeof plantStoreContract;

/** What each status means, per operation; statuses not listed here take the common meaning below. */
const responseDescriptions: Record<OperationId, Record<string, string>> = {
  createPlant: {
    200: "Plant response: the plant was created, or an identical create was replayed. The id is not part of the body.",
    400: "The body is not valid JSON or not a valid NewPlant; the message names the field.",
    409: "A plant with this id already exists with a different name or tag; the stored plant is unchanged.",
  },
  getPlant: {
    200: "The stored plant, with its id.",
    400: "The id in the path is not a decimal int64 (INVALID_PARAMETER).",
    404: "No plant has this id (PLANT_NOT_FOUND).",
  },
  listPlants: {
    200: "A page of stored plants in ascending id order; the Link header points to the next page when there is one.",
    400: "A query parameter is invalid, repeated or unknown (INVALID_PARAMETER); the message names it.",
  },
  deletePlant: {
    204: "The plant was deleted, durably. No body.",
    400: "The id in the path is not a decimal int64 (INVALID_PARAMETER).",
    404: "No plant has this id (PLANT_NOT_FOUND).",
  },
};

const commonDescriptions: Record<string, string> = {
  401: "The bearer credential is missing, malformed, unknown or revoked (see the WWW-Authenticate header).",
  403: "The token is valid but lacks the scope this operation needs (INSUFFICIENT_SCOPE; see WWW-Authenticate).",
  408: "The body did not arrive within the server's body timeout.",
  413: "The body is larger than the server's limit.",
  415: "The body is not application/json in UTF-8, or is content-encoded.",
  429: "The token is over its rate limit (RATE_LIMITED); retry after the Retry-After header's seconds.",
  500: "Unexpected server error; no internals are disclosed.",
  503: "Storage is unavailable; retry after the Retry-After header's seconds.",
};

const header = (description: string, schema: Record<string, unknown> = { type: "string" }) => ({ description, schema });

/** Response headers the server sends, by operation and status (every answer also carries X-Request-Id). */
const operationHeaders: Partial<Record<OperationId, Record<string, Record<string, ReturnType<typeof header>>>>> = {
  createPlant: {
    200: {
      [OUTCOME_HEADER]: header("Whether this call created the plant or replayed an identical earlier create.", {
        type: "string",
        enum: ["created", "replayed"],
      }),
    },
  },
  listPlants: {
    200: {
      Link: header(
        'RFC 8288: `</plants?limit=…&after=<last id>[&tag=…]>; rel="next"`, a relative reference to the next page. Present only when more plants follow.',
      ),
    },
  },
};

const commonHeaders: Record<string, Record<string, ReturnType<typeof header>>> = {
  401: {
    "WWW-Authenticate": header(
      'RFC 6750 challenge: Bearer realm="plantstore", with error="invalid_token" or error="invalid_request" when a credential was sent.',
    ),
  },
  403: {
    "WWW-Authenticate": header(
      'RFC 6750 challenge: Bearer realm="plantstore", error="insufficient_scope", scope="<the scope needed>".',
    ),
  },
  429: { "Retry-After": header("Seconds until the token's rate-limit window resets.", { type: "integer" }) },
  503: { "Retry-After": header("Seconds to wait before retrying.", { type: "integer" }) },
};

const requestIdHeader = header(
  "The client's X-Request-Id when it is 1–128 characters of A–Z a–z 0–9 . _ : @ / + = -, else a generated UUID.",
);

const catalogueTable = [
  "| error | HTTP status | name |",
  "|---|---|---|",
  ...errorCatalogue.map(({ code, status, name }) => `| ${code} | ${status} | ${name} |`),
].join("\n");

const description = `A plant store interface: a client adds plants to the store, reads them back one by one or page by page, and deletes them.

Every operation needs an HTTP bearer token (\`Authorization: Bearer <token>\`).

Rules the service enforces:
- \`id\` is a signed 64-bit integer (-2^63 … 2^63-1), kept exact: send it as a plain JSON integer, never as a string or fraction.
- \`name\` is 1–${NAME_MAX_LENGTH} and \`tag\` 1–${TAG_MAX_LENGTH} Unicode characters, well-formed, without control characters; \`tag\` may be omitted but not null.
- Unknown fields are refused (400), never silently dropped.
- Creating an id that exists: the same name and tag is an idempotent replay (200); anything else is 409 and the stored plant is unchanged.
- A 200 to a create and a 204 to a delete are sent only once the change is durably stored.
- Ids in every answer are exact JSON integers; a consumer whose JSON parser rounds above 2^53 must read them losslessly.

Error codes (the \`error\` field; its first three digits are the HTTP status):

${catalogueTable}`;

/** The OpenAPI 3.0 document for external consumers, generated from the contract. */
export function generateOpenApiDocument() {
  const document = generateOpenApi(
    plantStoreContract,
    {
      info: {
        title: "Plant Store",
        version: API_VERSION,
        description,
        license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      },
      servers: [{ url: "http://127.0.0.1:3000", description: "A local server started with `npm start`" }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", description: "A Plant Store API token." },
        },
      },
      // The whole interface is secured (spec, Authentication rule 3).
      security: [{ bearerAuth: [] }],
    },
    {
      setOperationId: true,
      operationMapper: (operation) => {
        const id = operation.operationId as OperationId;
        const responses = Object.fromEntries(
          Object.entries(operation.responses).map(([status, response]) => [
            status,
            {
              ...response,
              description: responseDescriptions[id][status] ?? commonDescriptions[status] ?? status,
              headers: {
                ...operationHeaders[id]?.[status],
                ...commonHeaders[status],
                "X-Request-Id": requestIdHeader,
              },
            },
          ]),
        );
        return {
          ...operation,
          tags: ["plants"],
          security: [{ bearerAuth: [] }],
          requestBody: operation.requestBody ? { ...operation.requestBody, required: true } : undefined,
          responses,
        };
      },
    },
  );
  return document;
}

/** The committed file's exact text: stable key order, two-space indent, final newline. */
export function serializeOpenApiDocument(document: ReturnType<typeof generateOpenApiDocument>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
