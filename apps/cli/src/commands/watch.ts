import type { PlantChange } from "@plantstore/client";
import { ChangeCursor, stringifyExactJson } from "@plantstore/contract";
import { clientFor, type GlobalOptions } from "../connection.js";
import { OutputError, outputSink } from "../export/output-sink.js";
import { asPlantStoreError, describeFailure } from "../failure.js";
import { trapInterrupts } from "../interrupt.js";
import { plantLine } from "../plant-text.js";
import { UsageError } from "../usage-error.js";

export interface WatchCommandOptions {
  /** Print the changes after this cursor (one a line printed before). */
  after?: string;
  /** One JSON object a line (ids exact) instead of tab-separated text. */
  jsonl?: boolean;
}

/**
 * A change as one line: `cursor<TAB>kind<TAB>id<TAB>name<TAB>tag` (the plant as `get` prints it;
 * for a reset `cursor<TAB>reset`), or with --jsonl one JSON object (ids exact).
 */
function changeLine(change: PlantChange, jsonl: boolean): string {
  if (jsonl) return `${stringifyExactJson(change)}\n`;
  return change.kind === "reset"
    ? `${change.cursor}\treset\n`
    : `${change.cursor}\t${change.kind}\t${plantLine(change.plant)}`;
}

/**
 * `plantstore watch`: prints every committed change as it happens, in commit order, each with the
 * cursor to resume from (`--after`), reconnecting by itself when the connection drops. A `reset`
 * line says the cursor given is older than what the server keeps (re-read the list; the changes
 * after that line follow). Runs until Ctrl-C or SIGTERM, then says on standard error which cursor to
 * resume from.
 */
export async function watchCommand(options: WatchCommandOptions, globals: GlobalOptions): Promise<number> {
  if (options.after !== undefined && !ChangeCursor.safeParse(options.after).success) {
    throw new UsageError(`--after: not a cursor (a decimal integer from 0, a line's first field): ${options.after}`);
  }
  const client = clientFor(globals);
  const trap = trapInterrupts("stopping the watch");
  const sink = outputSink(process.stdout);
  let cursor = options.after;
  try {
    const changes = client.watchPlants({
      ...(options.after === undefined ? {} : { after: options.after }),
      signal: trap.signal,
      onState: (state) => {
        if (state === "reconnecting") process.stderr.write("plantstore: the stream dropped; reconnecting\n");
      },
    });
    for await (const change of changes) {
      if (change.kind === "reset") process.stderr.write(`plantstore: ${change.message}\n`);
      await sink.write(changeLine(change, options.jsonl ?? false));
      await sink.flush();
      cursor = change.cursor;
    }
    process.stderr.write(
      cursor === undefined ? "plantstore: stopped\n" : `plantstore: stopped; resume with --after ${cursor}\n`,
    );
    return 0;
  } catch (error) {
    const reason =
      error instanceof OutputError ? `standard output: ${error.message}` : describeFailure(asPlantStoreError(error));
    const resume = cursor === undefined ? "" : ` (resume with --after ${cursor})`;
    process.stderr.write(`plantstore: could not watch the changes${resume}: ${reason}\n`);
    return 1;
  } finally {
    sink.release();
    trap.release();
  }
}
