import { stringifyExactJson, type PlantUpdate } from "@plantstore/contract";
import { clientFor, type GlobalOptions } from "../connection.js";
import { asPlantStoreError, reportPlantFailure } from "../failure.js";
import { plantIdArgument } from "../plant-id.js";
import { checkNewPlant } from "../records/check-new-plant.js";
import { UsageError } from "../usage-error.js";

export interface UpdateOptions {
  name: string;
  /** A new tag; `false` (--no-tag) removes it; undefined keeps the plant's current tag. */
  tag?: string | false;
}

/**
 * `plantstore update <id> --name … [--tag … | --no-tag]`: gives the plant a new name and tag. An
 * edit replaces both, so without --tag or --no-tag the plant is read first and its tag kept, the
 * edit made only if nobody changed the plant in between (If-Match with the ETag read): otherwise it
 * fails with exit code 1 and says so, and nothing is changed.
 */
export async function updateCommand(idText: string, options: UpdateOptions, globals: GlobalOptions): Promise<number> {
  const id = plantIdArgument(idText);
  const client = clientFor(globals);
  try {
    let ifMatch: string | undefined;
    let tag: string | undefined;
    if (options.tag === undefined) {
      const read = await client.readPlant(id);
      ifMatch = read.etag;
      tag = read.plant.tag;
    } else if (options.tag !== false) tag = options.tag;
    const wanted: PlantUpdate = tag === undefined ? { name: options.name } : { name: options.name, tag };
    const checked = checkNewPlant({ id, ...wanted });
    if (!checked.ok) throw new UsageError(`not a valid plant: ${checked.reason}`);
    const { plant, etag, attempts } = await client.updatePlant(id, wanted, { ifMatch });
    if (globals.json) process.stdout.write(`${stringifyExactJson({ id, plant, etag, attempts })}\n`);
    else
      process.stdout.write(`updated plant ${id}: ${plant.name}${plant.tag === undefined ? "" : ` (${plant.tag})`}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return reportPlantFailure(globals.json, id, asPlantStoreError(error), "update");
  }
}
