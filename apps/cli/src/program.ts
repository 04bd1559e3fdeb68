import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { addCommand, type AddOptions } from "./commands/add.js";
import { importCommand, type ImportCommandOptions } from "./commands/import.js";
import type { GlobalOptions } from "./connection.js";
import { UsageError } from "./usage-error.js";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

function integerBetween(min: number, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

/** Runs `plantstore` with the given argv (as process.argv) and resolves to the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command("plantstore")
    .description("Add plants to a Plant Store, or import a catalogue of them (CSV or JSON Lines).")
    .version(version)
    .addOption(
      new Option("--url <url>", "the Plant Store's base URL").env("PLANTSTORE_URL").default("http://127.0.0.1:3000"),
    )
    .addOption(
      new Option("--token <token>", "API bearer token (prefer the variable: arguments show in process lists)").env(
        "PLANTSTORE_TOKEN",
      ),
    )
    .option("--json", "write the result as JSON on standard output")
    .addOption(
      new Option("--timeout <ms>", "time limit of one request attempt; failed attempts are retried")
        .argParser(integerBetween(1, 3_600_000))
        .default(10_000),
    )
    .exitOverride()
    .showHelpAfterError("(plantstore --help shows the usage)");

  program
    .command("add")
    .description("Create one plant (an identical existing plant counts as success)")
    .requiredOption("--id <id>", "the plant's id: an integer from -9223372036854775808 to 9223372036854775807")
    .requiredOption("--name <name>", "the plant's name (1-256 characters)")
    .option("--tag <tag>", "the plant's tag (1-64 characters)")
    .action(async (options: AddOptions, command: Command) => {
      exitCode = await addCommand(options, command.optsWithGlobals<GlobalOptions & AddOptions>());
    });

  program
    .command("import")
    .description("Create every plant of a CSV (header id,name,tag) or JSON Lines file; re-running is safe")
    .argument("<source>", "a .csv or .jsonl file, or - for standard input (with --format)")
    .addOption(
      new Option("--format <format>", "the source's format (default: from the file name)").choices(["csv", "jsonl"]),
    )
    .addOption(
      new Option("-c, --concurrency <n>", "creates in flight at once").argParser(integerBetween(1, 256)).default(16),
    )
    .addOption(
      new Option("--progress-interval <ms>", "how often to print progress when standard error is not a terminal")
        .argParser(integerBetween(100, 3_600_000))
        .default(2_000),
    )
    .addHelpText(
      "after",
      "\nExit status: 0 when every line is stored, 1 when a line failed or the run stopped early, 2 for bad usage or an unreadable source, 130 when interrupted.",
    )
    .action(async (source: string, options: ImportCommandOptions, command: Command) => {
      exitCode = await importCommand(source, options, command.optsWithGlobals<GlobalOptions & ImportCommandOptions>());
    });

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Commander has already printed its message (and help, where useful).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      process.stderr.write(`plantstore: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
