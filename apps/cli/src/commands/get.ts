import { stringifyExactJson } from "@plantstore/contract";
import { clientFor, type GlobalOptions } from "../connection.js";
import { asPlantStoreError, reportPlantFailure } from "../failure.js";
import { plantIdArgument } from "../plant-id.js";
import { plantLine } from "../plant-text.js";

/** `plantstore get <id>`: prints the plant; exit code 1 when no plant has the id. */
export async function getCommand(idText: string, globals: GlobalOptions): Promise<number> {
  const id = plantIdArgument(idText);
  const client = clientFor(globals);
  try {
    const plant = await client.getPlant(id);
    process.stdout.write(globals.json ? `${stringifyExactJson(plant)}\n` : plantLine(plant));
    return 0;
  } catch (error) {
    return reportPlantFailure(globals.json, id, asPlantStoreError(error), "get");
  }
}
