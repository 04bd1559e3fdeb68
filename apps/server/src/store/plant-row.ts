import { hash } from "node:crypto";
import type { NewPlant } from "@plantstore/contract";
import type { CreateDecision, DeleteDecision, StoredPlant, UpdateDecision, VersionCondition } from "./storage.js";

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

/**
 * The version of a plant's content: a digest of its name and tag (the id is the resource's own).
 * The ETag is this, quoted: strong, since it changes whenever the representation does, and the
 * same for the same content on every backend and instance, so no column, migration or counter
 * keeps it. A plant deleted and created again with the same name and tag has the same version,
 * as its representation is the same. 128 bits of SHA-256: no accidental collision in practice.
 */
export function plantVersion({ name, tag }: Pick<StoredPlant, "name" | "tag">): string {
  return hash("sha256", JSON.stringify([name, tag ?? null]), "base64url").slice(0, 22);
}

/** Whether `ifMatch` (undefined: no condition) holds for the plant as it is. */
function holds(ifMatch: VersionCondition | undefined, current: StoredPlant): boolean {
  return ifMatch === undefined || ifMatch === "any" || ifMatch.includes(plantVersion(current));
}

/** No plant to change: a 404 without a condition, and a failed condition with one (RFC 9110 §13.1.1). */
const missing = (ifMatch: VersionCondition | undefined) =>
  ({ kind: ifMatch === undefined ? "not-found" : "precondition-failed" }) as const;

/**
 * An edit of `current` (undefined: no such plant) into `next`, with its condition: the one rule
 * both backends apply, in the same atomic step as the write. The condition comes first (RFC 9110
 * §13.2.2): a PUT whose If-Match does not hold is refused even when it would change nothing.
 * "updated" is the only decision that writes.
 */
export function decideUpdate(
  current: StoredPlant | undefined,
  next: StoredPlant,
  ifMatch: VersionCondition | undefined,
): UpdateDecision {
  if (current === undefined) return missing(ifMatch);
  if (!holds(ifMatch, current)) return { kind: "precondition-failed" };
  return current.name === next.name && current.tag === next.tag
    ? { kind: "unchanged", plant: next }
    : { kind: "updated", plant: next };
}

/** A delete of `current` (undefined: no such plant) with its condition; "deleted" is the only decision that writes. */
export function decideDelete(current: StoredPlant | undefined, ifMatch: VersionCondition | undefined): DeleteDecision {
  if (current === undefined) return missing(ifMatch);
  return holds(ifMatch, current) ? { kind: "deleted", plant: current } : { kind: "precondition-failed" };
}
