import type { DeleteDecision, PlantRepository, VersionCondition } from "../store/storage.js";

/**
 * The delete-plant use case: an id and the condition on the plant as it is (If-Match) in; what the
 * store decided out (deleted, not-found, or precondition-failed).
 */
export function deletePlant(
  plants: PlantRepository,
  id: bigint,
  ifMatch: VersionCondition | undefined,
): Promise<DeleteDecision> {
  return plants.delete(id, ifMatch);
}
