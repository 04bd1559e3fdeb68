import {
  COUNT_HEADER,
  countHeaderValue,
  ErrorCode,
  ETAG_HEADER,
  LIST_COUNT_MAX,
  LIST_LIMIT_DEFAULT,
  OUTCOME_HEADER,
  plantStoreContract,
  quoteEntityTag,
  type EntityTags,
  type Plant,
} from "@plantstore/contract";
import { initServer, type createExpressEndpoints } from "@ts-rest/express";
import { createPlant } from "../../plants/create-plant.js";
import { deletePlant } from "../../plants/delete-plant.js";
import { getPlant } from "../../plants/get-plant.js";
import { countPlants, listPlants } from "../../plants/list-plants.js";
import { updatePlant } from "../../plants/update-plant.js";
import type { Metrics } from "../../metrics.js";
import type { PageQuery, Storage, StoredPlant, VersionCondition } from "../../store/storage.js";

/** The operations ts-rest answers: every one but the change stream (routes/changes.ts). */
type JsonOperations = Omit<typeof plantStoreContract, "streamPlantChanges">;

/** ts-rest's router type for them (the package does not export its name). */
type PlantRouter = Parameters<typeof createExpressEndpoints<JsonOperations>>[1];

/** The body of a 200 to a create: the plant without its id (spec rule 1). */
function plantBody({ name, tag }: StoredPlant): Plant {
  return tag === undefined ? { name } : { name, tag };
}

const plantNotFound = (id: bigint) => ({
  status: 404 as const,
  body: { error: ErrorCode.PLANT_NOT_FOUND, message: `no plant has id ${id}` },
});

const preconditionFailed = (id: bigint) => ({
  status: 412 as const,
  body: {
    error: ErrorCode.PRECONDITION_FAILED,
    message: `plant ${id} has changed since it was read, or no longer exists: its ETag is not one If-Match names; nothing was changed`,
  },
});

/**
 * `If-Match` as a condition on the plant's version: `*` holds for any version, a list for the
 * versions of its strong tags (RFC 9110 §13.1.1 compares strongly: a weak tag never matches).
 */
function ifMatchCondition(tags: EntityTags | undefined): VersionCondition | undefined {
  if (tags === undefined || tags === "*") return tags === undefined ? undefined : "any";
  return tags.filter((tag) => !tag.weak).map((tag) => tag.opaque);
}

/** `If-None-Match` as the versions the client has: weak comparison (RFC 9110 §13.1.2), W/ or not. */
function ifNoneMatchCondition(tags: EntityTags | undefined): VersionCondition | undefined {
  if (tags === undefined || tags === "*") return tags === undefined ? undefined : "any";
  return tags.map((tag) => tag.opaque);
}

/**
 * RFC 8288 link to the next page: a reference relative to the server, with the same query (limit,
 * order, tag, name, count) but `after`. Values are percent-encoded (a name may hold `&`, `%`, `+`).
 */
function nextPageLink(query: PageQuery, after: bigint, count: boolean | undefined): string {
  const parameters = [
    `limit=${query.limit}`,
    `after=${after}`,
    ...(query.order === "desc" ? ["order=desc"] : []),
    ...(query.tag === undefined ? [] : [`tag=${encodeURIComponent(query.tag)}`]),
    ...(query.name === undefined ? [] : [`name=${encodeURIComponent(query.name)}`]),
    ...(count === undefined ? [] : [`count=${count}`]),
  ];
  return `<${plantStoreContract.listPlants.path}?${parameters.join("&")}>; rel="next"`;
}

/**
 * Step 6 for the contract's operations: validated input → use case → outcome → status, headers
 * and body. ts-rest calls these handlers only with input the contract's schemas accepted.
 */
export function plantRoutes(storage: Storage, metrics: Metrics): PlantRouter {
  const { streamPlantChanges: _stream, ...jsonOperations } = plantStoreContract;
  return initServer().router(jsonOperations, {
    createPlant: async ({ body, res }) => {
      const outcome = await createPlant(storage.plants, body);
      metrics.countOutcome(outcome.kind);
      if (outcome.kind === "conflict") {
        const message = `a plant with id ${body.id} already exists with a different name or tag`;
        return { status: 409, body: { error: ErrorCode.ID_CONFLICT, message } };
      }
      res.setHeader(OUTCOME_HEADER, outcome.kind);
      return { status: 200, body: plantBody(outcome.plant) };
    },

    getPlant: async ({ params, headers, res }) => {
      const outcome = await getPlant(storage.plants, params.id, ifNoneMatchCondition(headers["if-none-match"]));
      if (outcome.kind === "not-found") return plantNotFound(params.id);
      res.setHeader(ETAG_HEADER, quoteEntityTag(outcome.version));
      return outcome.kind === "found" ? { status: 200, body: outcome.plant } : { status: 304, body: undefined };
    },

    listPlants: async ({ query, res }) => {
      const { after, order, tag, name, count } = query;
      const pageQuery: PageQuery = { limit: query.limit ?? LIST_LIMIT_DEFAULT, after, order, tag, name };
      const [page, counted] = await Promise.all([
        listPlants(storage.plants, pageQuery),
        count === true ? countPlants(storage.plants, { tag, name }, LIST_COUNT_MAX) : undefined,
      ]);
      if (page.nextAfter !== undefined) res.setHeader("Link", nextPageLink(pageQuery, page.nextAfter, count));
      if (counted !== undefined) res.setHeader(COUNT_HEADER, countHeaderValue(counted));
      return { status: 200, body: page.plants };
    },

    updatePlant: async ({ params, headers, body, res }) => {
      const plant = body.tag === undefined ? { id: params.id, name: body.name } : { id: params.id, ...body };
      const outcome = await updatePlant(storage.plants, plant, ifMatchCondition(headers["if-match"]));
      switch (outcome.kind) {
        case "updated":
        case "unchanged":
          metrics.countOutcome(outcome.kind);
          res.setHeader(ETAG_HEADER, quoteEntityTag(outcome.version));
          return { status: 200, body: outcome.plant };
        case "not-found":
          return plantNotFound(params.id);
        case "precondition-failed":
          metrics.countOutcome("precondition_failed");
          return preconditionFailed(params.id);
      }
    },

    deletePlant: async ({ params, headers }) => {
      const outcome = await deletePlant(storage.plants, params.id, ifMatchCondition(headers["if-match"]));
      switch (outcome.kind) {
        case "deleted":
          metrics.countOutcome("deleted");
          return { status: 204, body: undefined };
        case "not-found":
          return plantNotFound(params.id);
        case "precondition-failed":
          metrics.countOutcome("precondition_failed");
          return preconditionFailed(params.id);
      }
    },
  });
}
