// Type-level tests: checked by `tsc --noEmit` (the test script runs it), never executed.
import type { CreatePlantResult, Plant, PlantStoreClient } from "./index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_proof?: T) => undefined;

declare const client: PlantStoreClient;

export async function typeChecks(): Promise<void> {
  await client.createPlant({ id: 7, name: "Fern" });
  await client.createPlant({ id: 2n ** 60n, name: "Fern", tag: "indoor" });

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

  const result = await client.createPlant({ id: 7, name: "Fern" });
  // @ts-expect-error the 200 body (Plant) has no id
  void result.plant.id;
  assertType<Equal<typeof result.plant, { name: string; tag?: string | undefined }>>();
  assertType<Equal<Plant, { name: string; tag?: string | undefined }>>();
  assertType<Equal<CreatePlantResult["outcome"], "created" | "replayed" | "unknown">>();
}
