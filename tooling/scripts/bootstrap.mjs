#!/usr/bin/env node
// Makes `npm start` / `npm test` work on a machine that has only Node.js and npm:
// installs the workspace with the pnpm version pinned in package.json's `packageManager`,
// taken from PATH when it matches, else fetched once with `npx` (corepack's signature check
// fails behind some registry mirrors, so it is not used).
// An unsupported Node is refused first, in one line, before anything is installed (imports are
// evaluated in order, and the check exits the process).
import "./node-check.mjs";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { packageManager } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const version = packageManager.replace(/^pnpm@/, "");

function pnpmCommand() {
  // Already running under the pinned pnpm (e.g. `pnpm test`): reuse it.
  const execPath = process.env.npm_execpath ?? "";
  if (/pnpm/.test(execPath) && process.env.npm_config_user_agent?.startsWith(`pnpm/${version}`)) {
    return [process.execPath, [execPath]];
  }
  try {
    const found = execFileSync("pnpm", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (found === version) return ["pnpm", []];
  } catch {
    // no pnpm on PATH
  }
  return ["npx", ["--yes", `pnpm@${version}`]];
}

const [command, prefix] = pnpmCommand();
const result = spawnSync(
  command,
  [...prefix, "install", "--frozen-lockfile", "--prefer-offline", "--reporter=append-only"],
  {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CI: process.env.CI ?? "true" },
  },
);
if (result.error) {
  console.error(`bootstrap: could not run ${command}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
