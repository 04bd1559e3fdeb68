import { NewPlant, type NewPlantInput } from "@plantstore/contract";

export type PlantCheck = { ok: true; plant: NewPlantInput } | { ok: false; reason: string };

/**
 * Validates a candidate with the contract's own NewPlant schema, so a line is refused here for
 * exactly the reasons the server would refuse it, and with the same words, without a round trip.
 */
export function checkNewPlant(candidate: unknown, earlierIssues: string[] = []): PlantCheck {
  const result = NewPlant.safeParse(candidate);
  const issues = [...earlierIssues];
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path.join(".");
      // An id already reported by the caller (e.g. CSV text that is not an integer) is not repeated.
      if (field === "id" && earlierIssues.some((earlier) => earlier.startsWith("id:"))) continue;
      issues.push(field === "" ? issue.message : `${field}: ${issue.message}`);
    }
  }
  if (issues.length > 0 || !result.success) return { ok: false, reason: issues.join("; ") };
  const { id, name, tag } = result.data;
  return { ok: true, plant: tag === undefined ? { id, name } : { id, name, tag } };
}

/** The id as CSV or a flag gives it: decimal digits with an optional minus, read exactly as a bigint. */
export function parseIdText(text: string): { ok: true; id: bigint } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "id: is required" };
  if (!/^-?\d+$/.test(trimmed)) return { ok: false, reason: `id: must be an integer, not ${JSON.stringify(text)}` };
  return { ok: true, id: BigInt(trimmed) };
}
