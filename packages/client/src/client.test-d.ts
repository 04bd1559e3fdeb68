// Type tests: checked by vitest's typecheck mode (tsc), never executed. Each `@ts-expect-error` line
// must fail to compile, or tsc reports the directive as unused and the test fails.
import type { Equal, Expect } from "@plantstore/vitest-config/type-tests";
import { describe, test } from "vitest";
import type { CreatePlantResult, Plant, PlantStoreClient } from "./index.js";

declare const client: PlantStoreClient;

describe("createPlant", () => {
  test("takes a NewPlant: an integer id (number or bigint), a name, an optional tag", async () => {
    await client.createPlant({ id: 7, name: "Fern" });
    await client.createPlant({ id: 2n ** 60n, name: "Fern", tag: "indoor" });
  });

  test("refuses anything else", async () => {
    // @ts-expect-error the id is an integer, never a string
    await client.createPlant({ id: "7", name: "Fern" });
    // @ts-expect-error name is a string
    await client.createPlant({ id: 7, name: 5 });
    // @ts-expect-error tag may be omitted but not null
    await client.createPlant({ id: 7, name: "Fern", tag: null });
    // @ts-expect-error unknown fields are refused
    await client.createPlant({ id: 7, name: "Fern", color: "green" });
    // @ts-expect-error name is required
    await client.createPlant({ id: 7 });
    // @ts-expect-error id is required
    await client.createPlant({ name: "Fern" });
  });

  test("answers the Plant without its id, and the outcome", async () => {
    const result = await client.createPlant({ id: 7, name: "Fern" });
    // @ts-expect-error the 200 body (Plant) has no id
    void result.plant.id;
    type _answer = [
      Expect<Equal<typeof result.plant, { name: string; tag?: string | undefined }>>,
      Expect<Equal<Plant, { name: string; tag?: string | undefined }>>,
      Expect<Equal<CreatePlantResult["outcome"], "created" | "replayed" | "unknown">>,
    ];
  });
});
