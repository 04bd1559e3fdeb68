import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { LIST_LIMIT_MAX } from "@plantstore/contract";
import { addCommand, type AddOptions } from "./commands/add.js";
import { deleteCommand } from "./commands/delete.js";
import { exportCommand, STDOUT_DEFAULT_FORMAT, type ExportCommandOptions } from "./commands/export.js";
import { getCommand } from "./commands/get.js";
import { importCommand, type ImportCommandOptions } from "./commands/import.js";
import { updateCommand, type UpdateOptions } from "./commands/update.js";
import { LIST_DEFAULT_LIMIT, listCommand, type ListCommandOptions } from "./commands/list.js";
import type { GlobalOptions } from "./connection.js";
import { webhooksListenCommand, type WebhooksListenOptions } from "./commands/webhooks-listen.js";
import { watchCommand, type WatchCommandOptions } from "./commands/watch.js";
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

/** `--progress-interval`, shared by the commands that show progress (import, export). */
function progressIntervalOption(): Option {
  return new Option("--progress-interval <ms>", "how often to print progress when standard error is not a terminal")
    .argParser(integerBetween(100, 3_600_000))
    .default(2_000);
}

/** Runs `plantstore` with the given argv (as process.argv) and resolves to the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command("plantstore")
    .description(
      "Add, read, list, edit and delete the plants of a Plant Store, or import and export a catalogue of them (CSV or JSON Lines).",
    )
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
    .option(
      "--update",
      "make the store match the source: edit plants whose stored name or tag differs (else: conflicts)",
    )
    .addOption(progressIntervalOption())
    .addHelpText(
      "after",
      "\nExit status: 0 when every line is stored, 1 when a line failed or the run stopped early, 2 for bad usage or an unreadable source, 130 when interrupted.",
    )
    .action(async (source: string, options: ImportCommandOptions, command: Command) => {
      exitCode = await importCommand(source, options, command.optsWithGlobals<GlobalOptions & ImportCommandOptions>());
    });

  const pageSizeOption = () =>
    new Option("--page-size <n>", "plants per request to the server")
      .argParser(integerBetween(1, LIST_LIMIT_MAX))
      .default(LIST_LIMIT_MAX);

  /** A command that takes one plant id: `get` and `delete`. */
  const idCommand = (name: string, description: string, exitStatus: string, run: typeof getCommand) =>
    program
      .command(name)
      .description(description)
      .argument("<id>", "the plant's id: an integer from -9223372036854775808 to 9223372036854775807")
      .addHelpText("after", `\nExit status: ${exitStatus}`)
      .action(async (id: string, _options: unknown, command: Command) => {
        exitCode = await run(id, command.optsWithGlobals<GlobalOptions>());
      });

  idCommand(
    "get",
    "Print one plant: id, name and tag separated by tabs (--json: a JSON object, the id exact)",
    "0 when the plant is printed, 1 when no plant has the id (or the request failed), 2 for bad usage.",
    getCommand,
  );

  program
    .command("update")
    .description(
      "Give a plant a new name and tag; without --tag or --no-tag it keeps its tag (read first, changed only if nobody changed it since)",
    )
    .argument("<id>", "the plant's id: an integer from -9223372036854775808 to 9223372036854775807")
    .requiredOption("--name <name>", "the plant's new name (1-256 characters)")
    .option("--tag <tag>", "the plant's new tag (1-64 characters)")
    .option("--no-tag", "remove the plant's tag")
    .addHelpText(
      "after",
      "\nExit status: 0 when the plant has the name and tag, 1 when no plant has the id, someone changed it meanwhile, or the request failed, 2 for bad usage.",
    )
    .action(async (id: string, options: UpdateOptions, command: Command) => {
      exitCode = await updateCommand(id, options, command.optsWithGlobals<GlobalOptions & UpdateOptions>());
    });

  program
    .command("list")
    .description(
      "Print plants in id order, one a line: id, name and tag separated by tabs (--json: a JSON array, the ids exact)",
    )
    .option("--tag <tag>", "only plants with exactly this tag")
    .option("--name <prefix>", "only plants whose name starts with this (A-Z and a-z match each other)")
    .addOption(
      new Option("--order <order>", "ascending or descending id order").choices(["asc", "desc"]).default("asc"),
    )
    .addOption(
      new Option("--limit <n>", "print at most this many plants")
        .argParser(integerBetween(1, Number.MAX_SAFE_INTEGER))
        .default(LIST_DEFAULT_LIMIT),
    )
    .option("--after <id>", "start after this id (when more plants follow, the command says which to pass)")
    .addOption(pageSizeOption())
    .addHelpText("after", "\nExit status: 0 when the plants are printed, 1 when a request failed, 2 for bad usage.")
    .action(async (options: ListCommandOptions, command: Command) => {
      exitCode = await listCommand(options, command.optsWithGlobals<GlobalOptions & ListCommandOptions>());
    });

  idCommand(
    "delete",
    "Delete one plant",
    "0 when the plant is deleted (also when a retry finds it already gone after an attempt that may have deleted it), 1 when no plant has the id (or the request failed), 2 for bad usage.",
    deleteCommand,
  );

  program
    .command("export")
    .description("Write every plant, in id order, as CSV (header id,name,tag) or JSON Lines that import reads back")
    .argument(
      "[destination]",
      `a .csv or .jsonl file, or - for standard output (default; ${STDOUT_DEFAULT_FORMAT} unless --format)`,
      "-",
    )
    .addOption(
      new Option("--format <format>", "the format to write (default: from the file name)").choices(["csv", "jsonl"]),
    )
    .addOption(pageSizeOption())
    .addOption(progressIntervalOption())
    .addHelpText(
      "after",
      "\nA file is written beside the destination and renamed once complete: an interrupted or failed export leaves no partial file.\nExit status: 0 when every plant is written, 1 when the server or the output failed, 2 for bad usage or an unwritable destination, 130 when interrupted.",
    )
    .action(async (destination: string, options: ExportCommandOptions, command: Command) => {
      exitCode = await exportCommand(
        destination,
        options,
        command.optsWithGlobals<GlobalOptions & ExportCommandOptions>(),
      );
    });

  program
    .command("watch")
    .description(
      "Print every committed change as it happens, in commit order, one a line: cursor, kind (created, updated, deleted), id, name and tag separated by tabs (--jsonl: a JSON object a line, the ids exact)",
    )
    .option("--after <cursor>", "print the changes after this cursor (the first field of a line printed before)")
    .option("--jsonl", "one JSON object a line")
    .addHelpText(
      "after",
      "\nA line `<cursor>\treset` says the cursor is older than what the server keeps: re-read the list; the changes after it follow. The stream reconnects by itself.\nExit status: 0 when stopped with Ctrl-C or SIGTERM (standard error says which cursor to resume from), 1 when the server refused the watch (a revoked token), 2 for bad usage.",
    )
    .action(async (options: WatchCommandOptions, command: Command) => {
      exitCode = await watchCommand(options, command.optsWithGlobals<GlobalOptions & WatchCommandOptions>());
    });

  const webhooks = program.command("webhooks").description("Work with the webhook events Plant Store sends");
  webhooks
    .command("listen")
    .description(
      "Receive webhook deliveries on this machine: verify each with the endpoint's secret and print its event, one a line: type, webhook-id, id, name and tag separated by tabs (--json: a JSON object, the id exact)",
    )
    .addOption(
      new Option("--port <port>", "the port to listen on (0: any free port)")
        .argParser(integerBetween(0, 65_535))
        .makeOptionMandatory(),
    )
    .addOption(new Option("--host <host>", "the address to listen on").default("127.0.0.1"))
    .addOption(
      new Option(
        "--secret <whsec_…>",
        "the endpoint's secret (prefer the variable: arguments show in process lists)",
      ).env("PLANTSTORE_WEBHOOK_SECRET"),
    )
    .addOption(
      new Option("--tolerance <seconds>", "how far a delivery's timestamp may be from now")
        .argParser(integerBetween(1, 86_400))
        .default(300),
    )
    .addHelpText(
      "after",
      "\nVerified deliveries are answered 204 (retries of an event already printed, and events older than one already printed for their plant, are not printed); refused ones 400, with the reason on standard error, so that the server retries them.\nExit status: 0 when stopped with Ctrl-C or SIGTERM, 2 for bad usage (a malformed secret, a port in use).",
    )
    .action(async (options: WebhooksListenOptions, command: Command) => {
      exitCode = await webhooksListenCommand(options, command.optsWithGlobals<GlobalOptions>().json ?? false);
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
