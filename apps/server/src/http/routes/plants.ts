import { ErrorCode, OUTCOME_HEADER, plantStoreContract, type Plant } from "@plantstore/contract";
import { initServer, type createExpressEndpoints } from "@ts-rest/express";
import { createPlant } from "../../plants/create-plant.js";
import type { Storage, StoredPlant } from "../../store/storage.js";

/** The body of a 200 to a create: the plant without its id (spec rule 1). */
function plantBody({ name, tag }: StoredPlant): Plant {
  return tag === undefined ? { name } : { name, tag };
}

/** ts-rest's router type for the contract (the package does not export its name). */
type PlantRouter = Parameters<typeof createExpressEndpoints<typeof plantStoreContract>>[1];

/**
 * Step 6 for the contract's operations: validated input → use case → outcome → status, headers
 * and body. ts-rest calls these handlers only with input the contract's schemas accepted.
 */
export function plantRoutes(storage: Storage): PlantRouter {
  return initServer().router(plantStoreContract, {
    createPlant: async ({ body, res }) => {
      const outcome = await createPlant(storage.plants, body);
      if (outcome.kind === "conflict") {
        const message = `a plant with id ${body.id} already exists with a different name or tag`;
        return { status: 409, body: { error: ErrorCode.ID_CONFLICT, message } };
      }
      res.setHeader(OUTCOME_HEADER, outcome.kind);
      return { status: 200, body: plantBody(outcome.plant) };
    },
  });
}
