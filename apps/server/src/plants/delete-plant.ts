import type { DeleteDecision, PlantRepository } from "../store/storage.js";

/** The delete-plant use case: an id in, what the store decided out (deleted, or not-found). */
export function deletePlant(plants: PlantRepository, id: bigint): Promise<DeleteDecision> {
  return plants.delete(id);
}
