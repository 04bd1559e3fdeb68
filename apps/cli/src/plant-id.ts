import { PlantId } from "@plantstore/contract";
import { parseIdText } from "./records/check-new-plant.js";
import { UsageError } from "./usage-error.js";

/** An id given on the command line, read exactly and checked against int64; a bad one is a usage error (exit 2). */
export function plantIdArgument(text: string, what = "id"): bigint {
  const parsed = parseIdText(text);
  if (!parsed.ok) throw new UsageError(`not a valid ${what}: ${parsed.reason.replace(/^id: /, "")}`);
  const checked = PlantId.safeParse(parsed.id);
  if (!checked.success)
    throw new UsageError(`not a valid ${what}: ${checked.error.issues[0]?.message ?? "not an int64"}`);
  return checked.data;
}
