import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { IfMatchHeader, IfNoneMatchHeader } from "./conditional.js";
import { CHANGE_STREAM_CONTENT_TYPE, ChangeStreamHeaders, ChangeStreamQuery } from "./changes.js";
import { ErrorBody } from "./error.js";
import { LIST_LIMIT_MAX, ListPlantsQuery, NewPlant, Plant, PlantIdPath, PlantUpdate, StoredPlant } from "./plant.js";
import type { OperationMetadata } from "./scopes.js";

const c = initContract();

const byId = z.object({ id: PlantIdPath });

/**
 * Failures every operation can answer: each needs a bearer token (401) with its scope (403) and is
 * rate-limited per token when the server is configured so (429); Node's HTTP parser refuses a
 * malformed request (400), one whose headers are too large (431) or arrive too slowly (408).
 */
const failures = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  408: ErrorBody,
  429: ErrorBody,
  431: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;

const needs = (scope: OperationMetadata["scope"]) => ({ scope }) satisfies OperationMetadata;

/**
 * The Plant Store API. Response descriptions for the OpenAPI document are in `openapi.ts`
 * (zod's `.describe()` would copy the schemas and lose their component names).
 * The specification shows POST /plants with 200 and 400; the other operations and statuses are the
 * decided answers to what it leaves open (see docs/api.md, "Decisions").
 */
export const plantStoreContract = c.router(
  {
    createPlant: {
      metadata: needs("plants:write"),
      method: "POST",
      path: "/plants",
      summary: "Create a plant",
      description:
        "Creates a new plant in the store. The id is chosen by the client. Sending the same id again with the same name and tag is an idempotent replay (200, same body); with a different name or tag it is a 409 conflict and the stored plant is unchanged. The 200 answer is sent only once the plant is durably stored.",
      body: NewPlant,
      responses: { 200: Plant, ...failures, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody },
    },
    // Before getPlant: `/plants/changes` is this operation, not the plant with id "changes".
    streamPlantChanges: {
      metadata: needs("plants:read"),
      method: "GET",
      path: "/plants/changes",
      summary: "Follow every committed change",
      description:
        "Answers a stream of Server-Sent Events (text/event-stream, the format EventSource reads): one event per committed change, in commit order across every instance — `event: plant.created`, `plant.updated` or `plant.deleted`, `data:` the same JSON as the change's webhook event (ids exact), `id:` the change's position, the cursor to resume from. A client that reconnects with Last-Event-ID (or `after`) gets every change committed after that cursor: no gap, no duplicate, on any instance, across restarts. Without a cursor the stream starts with the changes committed from now on (its first line block carries the starting cursor as `id:`). A cursor older than the changes the server keeps gets one `event: reset` (re-read the list; the stream goes on from its `id:`). Comment lines (`:`) are heartbeats. The stream ends when the token is revoked, when the client reads too slowly (resume from the last cursor), and at shutdown.",
      query: ChangeStreamQuery,
      headers: ChangeStreamHeaders,
      responses: {
        200: c.otherResponse({ contentType: CHANGE_STREAM_CONTENT_TYPE, body: z.string() }),
        ...failures,
      },
    },
    getPlant: {
      metadata: needs("plants:read"),
      method: "GET",
      path: "/plants/:id",
      summary: "Read a plant",
      description:
        "Answers the stored plant with its id, and its strong ETag: pass it as If-Match to a PUT or DELETE to change the plant only if nobody else changed it since. With If-None-Match naming the current ETag, the answer is 304 with no body. An id no plant has is a 404 PLANT_NOT_FOUND.",
      pathParams: byId,
      headers: z.object({ "if-none-match": IfNoneMatchHeader }),
      responses: { 200: StoredPlant, 304: c.noBody(), ...failures, 404: ErrorBody },
    },
    listPlants: {
      metadata: needs("plants:read"),
      method: "GET",
      path: "/plants",
      summary: "List plants",
      description:
        'Answers a page of stored plants as a JSON array, in ascending id order (signed 64-bit: -2^63 first), or descending with `order=desc`. `tag` keeps the plants with exactly that tag, `name` those whose name starts with the given text (ASCII letters in either case), both together those that match both. Pages are keyset-paginated: `after` is the last id of the previous page, so pages stay stable while plants are created and deleted and a deep page is as fast as the first. When more plants follow, the `Link` header has the relative URL of the next page (rel="next"), with the same `limit`, `order`, `tag`, `name` and `count`; following it from the first page visits every matching plant exactly once. With `count=true`, the Plant-Store-Count header says how many plants match, up to 1000 (`>1000` above).',
      query: ListPlantsQuery,
      responses: { 200: z.array(StoredPlant).max(LIST_LIMIT_MAX), ...failures },
    },
    updatePlant: {
      metadata: needs("plants:write"),
      method: "PUT",
      path: "/plants/:id",
      summary: "Edit a plant",
      description:
        "Replaces the plant's name and tag (a body without `tag` removes the tag) and answers the stored plant with its new ETag, once the change is durably stored. A PUT that changes nothing is a 200 that writes nothing (and sends no event), so repeating a PUT is safe. With If-Match, the change is made only if the plant's current ETag is one named (`*`: only if the plant exists); otherwise 412 PRECONDITION_FAILED and nothing changes: send the ETag you read, so that an edit someone else made meanwhile is not overwritten. An id no plant has is a 404 PLANT_NOT_FOUND (a PUT never creates: POST /plants does). After an edit, a create with the plant's id compares with the plant as it is now.",
      pathParams: byId,
      headers: z.object({ "if-match": IfMatchHeader }),
      body: PlantUpdate,
      responses: { 200: StoredPlant, ...failures, 404: ErrorBody, 412: ErrorBody, 413: ErrorBody, 415: ErrorBody },
    },
    deletePlant: {
      metadata: needs("plants:write"),
      method: "DELETE",
      path: "/plants/:id",
      summary: "Delete a plant",
      description:
        "Deletes the plant. The 204 answer is sent only once the deletion is durable; afterwards the id is free, and a create with it makes a new plant. With If-Match, only if the plant's current ETag is one named (`*`: only if it exists); otherwise 412 PRECONDITION_FAILED and nothing changes. An id no plant has is a 404 PLANT_NOT_FOUND.",
      pathParams: byId,
      headers: z.object({ "if-match": IfMatchHeader }),
      responses: { 204: c.noBody(), ...failures, 404: ErrorBody, 412: ErrorBody },
    },
  },
  { strictStatusCodes: true },
);

export type PlantStoreContract = typeof plantStoreContract;
