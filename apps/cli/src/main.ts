#!/usr/bin/env node
import { runCli } from "./program.js";

try {
  process.exitCode = await runCli(process.argv);
} catch (error) {
  // A bug, not a user mistake: one line, no stack trace (PLANTSTORE_DEBUG=1 shows it).
  process.stderr.write(`plantstore: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.PLANTSTORE_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
}
