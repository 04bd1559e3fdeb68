import type { NewPlant } from "@plantstore/contract";
import type { CreateDecision, PlantRepository } from "../store/storage.js";

/**
 * The create-plant use case: a NewPlant in, what the store decided out (created, replayed or
 * conflict). It knows nothing of HTTP or SQL; the route turns the outcome into an answer.
 */
export function createPlant(plants: PlantRepository, newPlant: NewPlant): Promise<CreateDecision> {
  return plants.create(newPlant);
}
