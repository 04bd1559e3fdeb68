import { stringifyExactJson } from "@plantstore/contract";
import { clientFor, type GlobalOptions } from "../connection.js";
import { asPlantStoreError, reportPlantFailure } from "../failure.js";
import { plantIdArgument } from "../plant-id.js";

/**
 * `plantstore delete <id>`: exit code 0 once no plant has the id because of this command — it
 * deleted it, or a retry found it gone after an earlier attempt that may have deleted it (the
 * client's retried-delete rule) — and 1 when no plant had the id to begin with.
 */
export async function deleteCommand(idText: string, globals: GlobalOptions): Promise<number> {
  const id = plantIdArgument(idText);
  const client = clientFor(globals);
  try {
    const { outcome, attempts } = await client.deletePlant(id);
    if (globals.json) process.stdout.write(`${stringifyExactJson({ id, outcome, attempts })}\n`);
    else if (outcome === "deleted") process.stdout.write(`deleted plant ${id}\n`);
    else {
      process.stdout.write(
        `plant ${id} is gone: an earlier attempt whose answer was lost may have deleted it (${attempts} attempts)\n`,
      );
    }
    return 0;
  } catch (error) {
    return reportPlantFailure(globals.json, id, asPlantStoreError(error), "delete");
  }
}
