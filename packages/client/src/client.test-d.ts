// Type tests: checked by vitest's typecheck mode (tsc), never executed. Each `@ts-expect-error` line
// must fail to compile, or tsc reports the directive as unused and the test fails.
import type { Equal, Expect } from "@plantstore/vitest-config/type-tests";
import { describe, test } from "vitest";
import type {
  CreatePlantResult,
  DeleteOutcome,
  DeletePlantResult,
  Plant,
  PlantPage,
  PlantStoreClient,
  StoredPlant,
} from "./index.js";

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

describe("getPlant, listPlants, plants and deletePlant", () => {
  test("read exact bigint ids, whatever the id was given as", async () => {
    const plant = await client.getPlant(2n ** 60n);
    void plant;
    type _read = [
      Expect<Equal<typeof plant, StoredPlant>>,
      Expect<Equal<StoredPlant, { id: bigint; name: string; tag?: string | undefined }>>,
      Expect<Equal<typeof plant.id, bigint>>,
    ];
    await client.getPlant(7);
    // @ts-expect-error an id is never a string
    await client.getPlant("7");
    // @ts-expect-error an id is required
    await client.getPlant();
  });

  test("list a page and its next cursor, and refuse unknown or mistyped parameters", async () => {
    const page = await client.listPlants({ limit: 10, after: 2n ** 60n, tag: "indoor" });
    type _page = [
      Expect<Equal<typeof page, PlantPage>>,
      Expect<Equal<typeof page.plants, StoredPlant[]>>,
      Expect<Equal<typeof page.next, bigint | undefined>>,
    ];
    await client.listPlants();
    await client.listPlants({ after: page.next });
    // @ts-expect-error limit is a number
    await client.listPlants({ limit: "10" });
    // @ts-expect-error after is an id, never a string
    await client.listPlants({ after: "7" });
    // @ts-expect-error unknown query members are refused
    await client.listPlants({ offset: 10 });
  });

  test("iterate every plant, page after page", async () => {
    for await (const each of client.plants({ tag: "indoor", pageSize: 500, signal: AbortSignal.timeout(1_000) })) {
      void each;
      type _each = [Expect<Equal<typeof each, StoredPlant>>, Expect<Equal<typeof each.id, bigint>>];
    }
    // @ts-expect-error pageSize is a number
    client.plants({ pageSize: "500" });
  });

  test("delete, saying whether this call deleted it or an earlier attempt may have", async () => {
    const deleted = await client.deletePlant(2n ** 60n, { signal: AbortSignal.timeout(1_000) });
    void deleted;
    type _deleted = [
      Expect<Equal<typeof deleted, DeletePlantResult>>,
      Expect<Equal<DeleteOutcome, "deleted" | "unknown">>,
      Expect<Equal<typeof deleted.attempts, number>>,
    ];
    // @ts-expect-error an id is never a string
    await client.deletePlant("7");
  });
});
