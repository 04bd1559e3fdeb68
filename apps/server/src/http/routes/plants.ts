import { ErrorCode, LIST_LIMIT_DEFAULT, OUTCOME_HEADER, plantStoreContract, type Plant } from "@plantstore/contract";
import { initServer, type createExpressEndpoints } from "@ts-rest/express";
import { createPlant } from "../../plants/create-plant.js";
import { deletePlant } from "../../plants/delete-plant.js";
import { getPlant } from "../../plants/get-plant.js";
import { listPlants } from "../../plants/list-plants.js";
import type { Metrics } from "../../metrics.js";
import type { Storage, StoredPlant } from "../../store/storage.js";

/** ts-rest's router type for the contract (the package does not export its name). */
type PlantRouter = Parameters<typeof createExpressEndpoints<typeof plantStoreContract>>[1];

/** The body of a 200 to a create: the plant without its id (spec rule 1). */
function plantBody({ name, tag }: StoredPlant): Plant {
  return tag === undefined ? { name } : { name, tag };
}

const plantNotFound = (id: bigint) => ({
  status: 404 as const,
  body: { error: ErrorCode.PLANT_NOT_FOUND, message: `no plant has id ${id}` },
});

/** RFC 8288 link to the next page: a reference relative to the server, with the same limit and tag. */
function nextPageLink(limit: number, after: bigint, tag: string | undefined): string {
  const tagParameter = tag === undefined ? "" : `&tag=${encodeURIComponent(tag)}`;
  return `<${plantStoreContract.listPlants.path}?limit=${limit}&after=${after}${tagParameter}>; rel="next"`;
}

/**
 * Step 6 for the contract's operations: validated input → use case → outcome → status, headers
 * and body. ts-rest calls these handlers only with input the contract's schemas accepted.
 */
export function plantRoutes(storage: Storage, metrics: Metrics): PlantRouter {
  return initServer().router(plantStoreContract, {
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

    getPlant: async ({ params }) => {
      const outcome = await getPlant(storage.plants, params.id);
      return outcome.kind === "found" ? { status: 200, body: outcome.plant } : plantNotFound(params.id);
    },

    listPlants: async ({ query, res }) => {
      const limit = query.limit ?? LIST_LIMIT_DEFAULT;
      const page = await listPlants(storage.plants, { limit, after: query.after, tag: query.tag });
      if (page.nextAfter !== undefined) res.setHeader("Link", nextPageLink(limit, page.nextAfter, query.tag));
      return { status: 200, body: page.plants };
    },

    deletePlant: async ({ params }) => {
      const outcome = await deletePlant(storage.plants, params.id);
      if (outcome.kind === "deleted") metrics.countOutcome("deleted");
      return outcome.kind === "deleted" ? { status: 204, body: undefined } : plantNotFound(params.id);
    },
  });
}
