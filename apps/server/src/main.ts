#!/usr/bin/env node
/** Process entry: config → storage → listen → signals. `node dist/main.js [tokens …]`. */
import { ConfigError, loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { openStorage } from "./store/open-storage.js";
import { startServer } from "./server.js";
import { firstRunTokenNotice } from "./tokens/first-run-token.js";
import { runTokensCommand } from "./admin/tokens-command.js";

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
  const running = await startServer(config);
  const { logger } = running;
  if (running.firstRunToken) process.stdout.write(firstRunTokenNotice(running.firstRunToken, running.url));

  const stop = (signal: string) => {
    logger.info({ signal }, "signal received");
    running.close().then(
      (clean) => flushThenExit(logger, clean ? 0 : 1),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        flushThenExit(logger, 1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => {
    stop("SIGINT");
    // A second Ctrl-C stops at once.
    process.once("SIGINT", () => process.exit(130));
  });
  const crash = (error: unknown) => {
    logger.fatal({ err: error }, "crashed");
    flushThenExit(logger, 1);
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
}

async function tokens(config: Config, args: string[]): Promise<void> {
  const storage = await openStorage(config.databaseUrl, {
    poolMax: 1,
    connectionTimeoutMs: config.pgConnectionTimeoutMs,
    idleTimeoutMs: config.pgIdleTimeoutMs,
    logger: createLogger("silent"),
  });
  try {
    process.exitCode = await runTokensCommand(args, storage);
  } finally {
    await storage.close();
  }
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}
const [command, ...args] = process.argv.slice(2);
const run = command === "tokens" ? tokens(config, args) : command === undefined ? serve(config) : undefined;
if (run === undefined) fail(`unknown command "${command}"; usage: main.js [tokens list|create|revoke]`);
run.catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  if (code === "EADDRINUSE") fail(`port ${config.port} on ${config.host} is already in use (set PORT)`);
  if (code === "EACCES") fail(`not allowed to listen on ${config.host}:${config.port}`);
  if (code === "EADDRNOTAVAIL") fail(`cannot listen on HOST ${config.host}: no such local address`);
  fail(`could not start: ${error instanceof Error ? error.message : String(error)}`);
});
