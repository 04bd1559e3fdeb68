import type { PlantRepository, StoredPlant } from "../store/storage.js";

export type GetOutcome = { kind: "found"; plant: StoredPlant } | { kind: "not-found" };

/** The get-plant use case: an id in, the committed plant or not-found out. */
export async function getPlant(plants: PlantRepository, id: bigint): Promise<GetOutcome> {
  const plant = await plants.find(id);
  return plant === undefined ? { kind: "not-found" } : { kind: "found", plant };
}
