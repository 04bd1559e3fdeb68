import { ErrorCode, type NewPlant, type Plant } from "@plantstore/contract";
import type { CreateOutcome, PlantRepository } from "../store/storage.js";

export type CreatePlantResult =
  | { status: 200; body: Plant; outcome: "created" | "replayed" }
  | { status: 409; body: { error: number; message: string } };

function toPlant(plant: { name: string; tag?: string }): Plant {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

export function describeOutcome(newPlant: NewPlant, outcome: CreateOutcome): CreatePlantResult {
  switch (outcome.kind) {
    case "created":
    case "replayed":
      return { status: 200, body: toPlant(outcome.plant), outcome: outcome.kind };
    case "conflict":
      return {
        status: 409,
        body: {
          error: ErrorCode.ID_CONFLICT,
          message: `a plant with id ${newPlant.id} already exists with a different name or tag`,
        },
      };
  }
}

/** The create-plant use case: NewPlant in, outcome out. Knows nothing of HTTP or SQL. */
export async function createPlant(plants: PlantRepository, newPlant: NewPlant): Promise<CreatePlantResult> {
  return describeOutcome(newPlant, await plants.create(newPlant));
}
