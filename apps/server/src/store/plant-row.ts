import { hash } from "node:crypto";
import type { NewPlant } from "@plantstore/contract";
import type { CreateDecision, DeleteDecision, Preconditions, StoredPlant, UpdateDecision } from "./storage.js";

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

/**
 * Whether `condition` (undefined: none) holds for the plant as it is (undefined: no such plant).
 * If-Match compares strongly and If-None-Match weakly (RFC 9110 §13.1.1, §13.1.2): the callers
 * have already dropped the weak tags of an If-Match and the W/ of an If-None-Match.
 */
function holds(condition: Preconditions | undefined, current: StoredPlant | undefined): boolean {
  if (condition === undefined) return true;
  const version = current === undefined ? undefined : plantVersion(current);
  const { ifMatch, ifNoneMatch } = condition;
  const matches = (tags: "any" | readonly string[]) =>
    version !== undefined && (tags === "any" || tags.includes(version));
  return (ifMatch === undefined || matches(ifMatch)) && (ifNoneMatch === undefined || !matches(ifNoneMatch));
}

/**
 * No plant to change: a 404 when nothing was asked of it, or only that it not be some version (an
 * If-None-Match holds for a plant that does not exist), and a failed condition when an If-Match
 * asked for it (RFC 9110 §13.1.1).
 */
const missing = (condition: Preconditions | undefined) =>
  ({ kind: holds(condition, undefined) ? "not-found" : "precondition-failed" }) as const;

/**
 * An edit of `current` (undefined: no such plant) into `next`, with its condition: the one rule
 * both backends apply, in the same atomic step as the write. The condition comes first (RFC 9110
 * §13.2.2): a PUT whose condition does not hold is refused even when it would change nothing.
 * "updated" is the only decision that writes.
 */
export function decideUpdate(
  current: StoredPlant | undefined,
  next: StoredPlant,
  condition: Preconditions | undefined,
): UpdateDecision {
  if (current === undefined) return missing(condition);
  if (!holds(condition, current)) return { kind: "precondition-failed" };
  return current.name === next.name && current.tag === next.tag
    ? { kind: "unchanged", plant: next }
    : { kind: "updated", plant: next };
}

/** A delete of `current` (undefined: no such plant) with its condition; "deleted" is the only decision that writes. */
export function decideDelete(current: StoredPlant | undefined, condition: Preconditions | undefined): DeleteDecision {
  if (current === undefined) return missing(condition);
  return holds(condition, current) ? { kind: "deleted", plant: current } : { kind: "precondition-failed" };
}
