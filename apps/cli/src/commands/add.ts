import { PlantStoreError } from "@plantstore/client";
import { checkNewPlant, parseIdText } from "../records/check-new-plant.js";
import { clientFor, type GlobalOptions } from "../connection.js";
import { describeFailure, failureJson } from "../failure.js";
import { UsageError } from "../usage-error.js";

export interface AddOptions {
  id: string;
  name: string;
  tag?: string;
}

/** `plantstore add`: creates one plant; exit code 0 when it is stored (created or already there). */
export async function addCommand(options: AddOptions, globals: GlobalOptions): Promise<number> {
  const id = parseIdText(options.id);
  const checked = checkNewPlant(
    { id: id.ok ? id.id : 0n, name: options.name, ...(options.tag !== undefined && { tag: options.tag }) },
    id.ok ? [] : [id.reason],
  );
  if (!checked.ok) throw new UsageError(`not a valid plant: ${checked.reason}`);
  const idText = String(checked.plant.id);
  const client = clientFor(globals);
  try {
    const { plant, outcome } = await client.createPlant(checked.plant);
    if (globals.json) process.stdout.write(`${JSON.stringify({ id: idText, outcome, plant })}\n`);
    else {
      const what = `plant ${idText}: ${plant.name}${plant.tag === undefined ? "" : ` (${plant.tag})`}`;
      const verb = { created: "created", replayed: "already present", unknown: "stored" }[outcome];
      process.stdout.write(`${verb} ${what}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof PlantStoreError)) throw error;
    if (globals.json) process.stdout.write(`${JSON.stringify({ id: idText, error: failureJson(error) })}\n`);
    process.stderr.write(`plantstore: could not add plant ${idText}: ${describeFailure(error)}\n`);
    return 1;
  }
}
