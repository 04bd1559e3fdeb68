import type { DeleteDecision, PlantRepository, Preconditions } from "../store/storage.js";

/**
 * The delete-plant use case: an id and the conditions on the plant as it is (If-Match, If-None-Match) in; what the
 * store decided out (deleted, not-found, or precondition-failed).
 */
export function deletePlant(
  plants: PlantRepository,
  id: bigint,
  condition: Preconditions | undefined,
): Promise<DeleteDecision> {
  return plants.delete(id, condition);
}
