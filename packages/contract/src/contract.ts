import { initContract } from "@ts-rest/core";
import { ErrorBody } from "./error.js";
import { NewPlant, Plant } from "./plant.js";

const c = initContract();

/**
 * The Plant Store API. Response descriptions for the OpenAPI document are in `openapi.ts`
 * (zod's `.describe()` would copy the schemas and lose their component names).
 * The specification shows 200 and 400; the other statuses are the decided
 * answers to what it leaves open (see the README's "Decisions").
 */
export const plantStoreContract = c.router(
  {
    createPlant: {
      method: "POST",
      path: "/plants",
      summary: "Create a plant",
      description:
        "Creates a new plant in the store. The id is chosen by the client. Sending the same id again with the same name and tag is an idempotent replay (200, same body); with a different name or tag it is a 409 conflict and the stored plant is unchanged. The 200 answer is sent only once the plant is durably stored.",
      body: NewPlant,
      responses: {
        200: Plant,
        400: ErrorBody,
        401: ErrorBody,
        408: ErrorBody,
        409: ErrorBody,
        413: ErrorBody,
        415: ErrorBody,
        500: ErrorBody,
        503: ErrorBody,
      },
    },
  },
  { strictStatusCodes: true },
);

export type PlantStoreContract = typeof plantStoreContract;
