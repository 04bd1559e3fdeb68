import { plantVersion } from "../store/plant-row.js";
import type { PlantRepository, StoredPlant, VersionCondition } from "../store/storage.js";

export type GetOutcome =
  | { kind: "found"; plant: StoredPlant; version: string }
  /** The client's copy is current (If-None-Match named this version, or any). */
  | { kind: "not-modified"; version: string }
  | { kind: "not-found" };

/**
 * The get-plant use case: an id and the versions the client already has (If-None-Match) in; the
 * committed plant with its version, not-modified, or not-found out.
 */
export async function getPlant(
  plants: PlantRepository,
  id: bigint,
  ifNoneMatch: VersionCondition | undefined,
): Promise<GetOutcome> {
  const plant = await plants.find(id);
  if (plant === undefined) return { kind: "not-found" };
  const version = plantVersion(plant);
  const current = ifNoneMatch !== undefined && (ifNoneMatch === "any" || ifNoneMatch.includes(version));
  return current ? { kind: "not-modified", version } : { kind: "found", plant, version };
}
