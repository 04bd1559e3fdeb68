#!/usr/bin/env node
/** Process entry: config → storage → listen → signals. `node dist/main.js [tokens …]`. */
// First of all: modules are evaluated in import order, so an unsupported Node is refused before any
// module that needs a supported one (the SQLite addon) is loaded.
import "./node-check.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { openStorage } from "./store/open-storage.js";
import { startServer } from "./server.js";
import { firstRunTokenNotice } from "./tokens/first-run-token.js";
import { callableUrl, tokensCommand } from "./admin/command-line.js";
import { runTokensCommand } from "./admin/tokens-command.js";
import { runWebhooksCommand } from "./admin/webhooks-command.js";
import { describeDatabase, type Storage } from "./store/storage.js";

function fail(message: string): never {
  process.stderr.write(`plantstore: ${message}\n`);
  process.exit(1);
}

function flushThenExit(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
  // If stdout is gone the flush callback may never run.
  setTimeout(() => process.exit(code), 1_000).unref();
}

async function serve(config: Config): Promise<void> {
  const starting = startServer(config);
  // Signals are handled from the start: the "listening" line can reach a supervisor (which may then
  // stop the server at once) before this function resumes after startServer.
  const stop = (signal: string) => {
    void starting.then((running) => {
      running.logger.info({ signal }, "signal received");
      running.close().then(
        (clean) => flushThenExit(running.logger, clean ? 0 : 1),
        (error: unknown) => {
          running.logger.error({ err: error }, "shutdown failed");
          flushThenExit(running.logger, 1);
        },
      );
    });
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => {
    stop("SIGINT");
    // A second Ctrl-C stops at once.
    process.once("SIGINT", () => process.exit(130));
  });

  const running = await starting;
  const { logger } = running;
  if (running.firstRunToken) {
    const url = callableUrl(running.host, running.port);
    process.stderr.write(firstRunTokenNotice(running.firstRunToken, url, tokensCommand));
  }
  const crash = (error: unknown) => {
    logger.fatal({ err: error }, "crashed");
    flushThenExit(logger, 1);
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
}

/**
 * The admin commands: each opens the configured storage when it first needs it, says which
 * database that is (on standard error: standard output is the command's result), does its work,
 * and closes it.
 */
type AdminCommand = (args: string[], open: () => Promise<Storage>) => Promise<number>;
const ADMIN_COMMANDS: Record<string, AdminCommand> = {
  tokens: runTokensCommand,
  webhooks: runWebhooksCommand,
};

async function admin(config: Config, name: string, command: AdminCommand, args: string[]) {
  // A reader that stops early (`tokens list | head -1`) closes the pipe: end quietly, as Unix tools
  // do, rather than with Node's stack trace for the unhandled EPIPE.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    fail(`could not write to standard output: ${error.message}`);
  });
  let opening: Promise<Storage> | undefined;
  const open = () =>
    (opening ??= openStorage(config.databaseUrl, {
      poolMax: 1,
      connectionTimeoutMs: config.pgConnectionTimeoutMs,
      idleTimeoutMs: config.pgIdleTimeoutMs,
      logger: createLogger("silent"),
    }).then((storage) => {
      process.stderr.write(`plantstore-server ${name}: ${describeDatabase(storage)}\n`);
      return storage;
    }));
  try {
    process.exitCode = await command(args, open);
  } finally {
    if (opening !== undefined) await (await opening).close();
  }
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}
const [command, ...args] = process.argv.slice(2);
const adminCommand =
  command !== undefined && Object.hasOwn(ADMIN_COMMANDS, command) ? ADMIN_COMMANDS[command] : undefined;
const run = command === undefined ? serve(config) : adminCommand && admin(config, command, adminCommand, args);
if (run === undefined) fail(`unknown command "${command}"; usage: main.js [tokens … | webhooks …]`);
run.catch((error: unknown) => {
  const { code, syscall } = error as NodeJS.ErrnoException;
  // Only the listening socket's errors are about HOST and PORT; an EACCES from opening the data
  // directory is reported by storage in its own words (which name the path).
  if (syscall === "listen") {
    if (code === "EADDRINUSE") fail(`port ${config.port} on ${config.host} is already in use (set PORT)`);
    if (code === "EACCES")
      fail(`not allowed to listen on ${config.host}:${config.port} (a port below 1024 needs privileges)`);
    if (code === "EADDRNOTAVAIL") fail(`cannot listen on HOST ${config.host}: no such local address`);
  }
  fail(`could not start: ${error instanceof Error ? error.message : String(error)}`);
});
