import { parseArgs, type ParseArgsConfig } from "node:util";

/** Bad usage of an admin command: exit code 2. An empty message prints the command's usage. */
export class UsageError extends Error {}

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** What `parseArgs` gives for these options (named, so that it can be exported). */
export type ParsedCommand<Options extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: Options }>
>;

/** The command's words and options; anything `parseArgs` refuses is bad usage. */
export function parseCommand<Options extends OptionsConfig>(args: string[], options: Options): ParsedCommand<Options> {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Runs an admin command: its exit code, or 2 with one line on standard error for bad usage (the
 * usage text itself when the error says nothing more).
 */
export async function runAdminCommand(name: string, usage: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(error.message === "" ? `${usage}\n` : `plantstore-server ${name}: ${error.message}\n`);
    return 2;
  }
}
