import { plantVersion } from "../store/plant-row.js";
import type { PlantRepository, StoredPlant, UpdateDecision, Preconditions } from "../store/storage.js";

/** What an edit did, with the version (the ETag's content) of the plant it left. */
export type UpdateOutcome =
  | (Extract<UpdateDecision, { kind: "updated" | "unchanged" }> & { version: string })
  | Extract<UpdateDecision, { kind: "not-found" | "precondition-failed" }>;

/**
 * The edit-plant use case: the plant as it is to be (its id, new name and tag) and the condition on
 * the plant as it is now (If-Match, If-None-Match) in; what the store decided out:
 * updated, unchanged (nothing written), not-found, or precondition-failed. The store checks the
 * condition and writes in one atomic step. It knows nothing of HTTP or SQL.
 */
export async function updatePlant(
  plants: PlantRepository,
  plant: StoredPlant,
  condition: Preconditions | undefined,
): Promise<UpdateOutcome> {
  const decision = await plants.update(plant, condition);
  return decision.kind === "updated" || decision.kind === "unchanged"
    ? { ...decision, version: plantVersion(decision.plant) }
    : decision;
}
