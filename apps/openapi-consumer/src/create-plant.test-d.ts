// Type tests: checked by vitest's typecheck mode (tsc), never executed. Each `@ts-expect-error` line
// must fail to compile, or tsc reports the directive as unused and the test fails.
import type { Equal, Expect } from "@plantstore/vitest-config/type-tests";
import { describe, test } from "vitest";
import { createPlant, createPlantStoreClient, type NewPlant, type Plant } from "./create-plant.js";
import type { paths } from "./schema.generated.js";

const client = createPlantStoreClient("http://127.0.0.1:3000", "token");
const baseUrl = "http://127.0.0.1:3000";

describe("POST /plants, typed from the OpenAPI document", () => {
  test("the right shape compiles, with and without a tag", async () => {
    await client.POST("/plants", { body: { id: 7, name: "Monstera deliciosa", tag: "indoor" } });
    await createPlant(baseUrl, "token", { id: 8, name: "Fern" });
  });

  test("a wrong shape does not", async () => {
    // @ts-expect-error the id is an integer, not a string
    await client.POST("/plants", { body: { id: "5", name: "Fern" } });
    // @ts-expect-error the name is a string
    await client.POST("/plants", { body: { id: 5, name: 5 } });
    // @ts-expect-error the id is required
    await client.POST("/plants", { body: { name: "Fern" } });
    // @ts-expect-error the tag is optional, not nullable
    await client.POST("/plants", { body: { id: 5, name: "Fern", tag: null } });
    // @ts-expect-error unknown fields are refused (additionalProperties: false)
    await createPlant(baseUrl, "token", { id: 5, name: "Fern", color: "green" });
    // @ts-expect-error also in a value declared as a NewPlant
    const _withColor: NewPlant = { id: 5, name: "Fern", color: "green" };
    // @ts-expect-error the body is required
    await client.POST("/plants", {});
    // @ts-expect-error the document has no PUT /plants
    await client.PUT("/plants", {});
  });

  test("known gap, kept visible: an unknown field in a bare client.POST compiles", async () => {
    // openapi-fetch infers its init argument, so TypeScript's excess-property check does not reach a
    // bare client.POST. createPlant's NewPlant parameter closes it, and the server refuses the field
    // (400) anyway. If openapi-fetch closes it, tsc fails here.
    await client.POST("/plants", { body: { id: 5, name: "Fern", color: "green" } });
  });

  test("the answers: a Plant without the id, or an Error", async () => {
    const { data, error } = await client.POST("/plants", { body: { id: 9, name: "Fern" } });
    if (data !== undefined) {
      // @ts-expect-error the 200 body does not echo the id
      void data.id;
    }
    if (error !== undefined) {
      type _error = Expect<Equal<typeof error, { error: number; message: string }>>;
    }
  });

  test("the 200 body is exactly {name, tag?}, and the id a number", () => {
    type Answer = paths["/plants"]["post"]["responses"][200]["content"]["application/json"];
    type _shapes = [
      Expect<Equal<Answer, Plant>>,
      Expect<Equal<keyof Plant, "name" | "tag">>,
      Expect<Equal<Plant, { name: string; tag?: string }>>,
      // openapi-typescript maps int64 to number (see docs/api.md: ids above 2^53 need a bigint-aware serializer).
      Expect<Equal<NewPlant["id"], number>>,
    ];
  });
});
