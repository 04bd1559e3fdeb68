import { PlantName, PlantTag, stringifyExactJson, type ListOrder } from "@plantstore/contract";
import { clientFor, type GlobalOptions } from "../connection.js";
import { OutputError, outputSink } from "../export/output-sink.js";
import { describeFailure, asPlantStoreError } from "../failure.js";
import { plantIdArgument } from "../plant-id.js";
import { plantLine } from "../plant-text.js";
import { UsageError } from "../usage-error.js";

export interface ListCommandOptions {
  tag?: string;
  /** Only plants whose name starts with this (A–Z match a–z). */
  name?: string;
  /** Id order: ascending (the default) or descending. */
  order: ListOrder;
  /** Plants to print at most. */
  limit: number;
  /** Start after this id (the cursor the previous listing printed). */
  after?: string;
  /** Plants per page request (1 to 1000). */
  pageSize: number;
}

/** The default of `--limit`: a screenful or two; `export` is the command for every plant. */
export const LIST_DEFAULT_LIMIT = 100;

/**
 * `plantstore list`: prints plants in id order (`--order desc`: descending), those with a tag or a
 * name prefix when asked, at most `--limit` of them, following the pages as needed. When more plants
 * follow, says on standard error how to list them (`--after <id>`).
 */
export async function listCommand(options: ListCommandOptions, globals: GlobalOptions): Promise<number> {
  const after = options.after === undefined ? undefined : plantIdArgument(options.after, "--after id");
  if (options.tag !== undefined) {
    const tag = PlantTag.safeParse(options.tag);
    if (!tag.success) throw new UsageError(`not a valid tag: ${tag.error.issues.map((i) => i.message).join("; ")}`);
  }
  if (options.name !== undefined) {
    const name = PlantName.safeParse(options.name);
    if (!name.success) {
      throw new UsageError(`not a valid name prefix: ${name.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  const { tag, name, order } = options;
  const client = clientFor(globals);
  const sink = outputSink(process.stdout);
  let printed = 0;
  let cursor = after;
  let more = false;
  try {
    if (globals.json) await sink.write("[");
    while (printed < options.limit) {
      const limit = Math.min(options.limit - printed, options.pageSize);
      const page = await client.listPlants({ limit, after: cursor, order, tag, name });
      let text = "";
      for (const plant of page.plants) {
        text += globals.json ? `${printed === 0 ? "" : ","}\n${stringifyExactJson(plant)}` : plantLine(plant);
        printed++;
      }
      await sink.write(text);
      // A page of a name may hold fewer plants than asked (even none) while more follow.
      more = page.next !== undefined;
      if (page.next === undefined) break;
      cursor = page.next;
    }
    if (globals.json) await sink.write(printed === 0 ? "]\n" : "\n]\n");
    await sink.flush();
  } catch (error) {
    const reason =
      error instanceof OutputError ? `standard output: ${error.message}` : describeFailure(asPlantStoreError(error));
    process.stderr.write(`plantstore: could not list plants (after ${printed} printed): ${reason}\n`);
    return 1;
  } finally {
    sink.release();
  }
  if (more && cursor !== undefined) {
    process.stderr.write(`plantstore: more plants follow; list them with --after ${cursor} (or a larger --limit)\n`);
  }
  return 0;
}
