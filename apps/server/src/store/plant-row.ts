import type { NewPlant } from "@plantstore/contract";
import type { CreateDecision, StoredPlant } from "./storage.js";

/** A row of the plants table as both databases return it (an absent tag is NULL). */
export interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

export function plantFromRow({ id, name, tag }: PlantRow): StoredPlant {
  return tag === null ? { id, name } : { id, name, tag };
}

/**
 * A create whose id already exists: an identical name and tag is a replay, anything else a
 * conflict (an absent tag equals only an absent tag). Both backends decide with this one rule.
 */
export function decideExisting(plant: NewPlant, existing: StoredPlant): CreateDecision {
  return plant.name === existing.name && plant.tag === existing.tag
    ? { kind: "replayed", plant: existing }
    : { kind: "conflict", existing };
}
