#!/usr/bin/env node
// `npm start`, `npm run plantstore -- …`, `npm run tokens -- …`, `npm run webhooks -- …` on any
// checkout, a fresh clone included: installs the workspace when node_modules does not match the
// lockfile (bootstrap.mjs), builds the package and what it depends on (turbo: nothing to do, and
// nothing printed, when it is already built), then runs the built program in this same process, so
// that its arguments, standard input and output, signals and exit code are the program's own.
//
//   node tooling/scripts/run-built.mjs <workspace package>[,<package>…] <built entry, from the root> [arguments…]
// An unsupported Node is refused first, in one line, before anything is installed or built.
import "./node-check.mjs";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const [workspacePackage, entry, ...args] = process.argv.slice(2);
// What the user typed (`npm run tokens`), for the one line that says why it cannot run.
const event = process.env.npm_lifecycle_event;
const label = event === undefined ? "run-built" : event === "start" ? "npm start" : `npm run ${event}`;

function cannotRun(reason) {
  process.stderr.write(`${label}: ${reason}\n`);
  process.exit(1);
}

if (workspacePackage === undefined || entry === undefined) {
  cannotRun("usage: run-built.mjs <workspace package> <built entry> [arguments…]");
}

/** pnpm keeps a copy of the lockfile it installed in node_modules/.pnpm: the same file, nothing to install. */
function installed() {
  const record = join(root, "node_modules", ".pnpm", "lock.yaml");
  const lockfile = join(root, "pnpm-lock.yaml");
  return existsSync(record) && readFileSync(record, "utf8") === readFileSync(lockfile, "utf8");
}

if (!installed()) {
  // The install's progress goes to standard error: standard output belongs to the program.
  const install = spawnSync(process.execPath, [join(root, "tooling", "scripts", "bootstrap.mjs")], {
    cwd: root,
    stdio: ["ignore", 2, 2],
  });
  if (install.error !== undefined) cannotRun(`could not install the workspace: ${install.error.message}`);
  if (install.status !== 0) cannotRun("could not install the workspace (pnpm install failed; its output is above)");
}

const turbo = join(root, "node_modules", ".bin", process.platform === "win32" ? "turbo.cmd" : "turbo");
// `<package>,<package>`: build several (npm start builds the server and the web app it serves).
const filters = workspacePackage.split(",").map((name) => `--filter=${name}`);
const build = spawnSync(turbo, ["run", "build", ...filters, "--output-logs=errors-only"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
});
if (build.error !== undefined) cannotRun(`could not run the build (${build.error.message})`);
if (build.status !== 0) {
  // Only the compiler's errors, which say what to fix; turbo's own summary adds nothing.
  const errors = `${build.stdout}${build.stderr}`
    .split("\n")
    .filter((line) => /error/i.test(line) && !/^\s*(ERROR\s+run failed|Failed:)/.test(line.trim()));
  process.stderr.write(errors.length > 0 ? `${errors.join("\n")}\n` : "");
  cannotRun(`could not build ${workspacePackage}; the errors are above (pnpm build shows them all)`);
}

const main = join(root, entry);
if (!existsSync(main)) cannotRun(`${entry} is missing after the build of ${workspacePackage}`);
process.argv = [process.argv[0], main, ...args];
try {
  await import(pathToFileURL(main).href);
} catch (error) {
  // The programs answer their own failures; this is one that stopped them from loading at all.
  const reason = error instanceof Error ? error.message : String(error);
  // Every native addon installed here is Node-API (better-sqlite3 13, the bundler's), one binary for
  // every Node, so a checkout installed under one Node runs under another. Should an addon ever be
  // built for one Node's ABI, this is the one line that says so and how to repair it.
  const otherNode = /NODE_MODULE_VERSION|ERR_DLOPEN_FAILED/.test(reason)
    ? ` (a native module installed for another Node.js: delete node_modules and run ${label} again)`
    : "";
  cannotRun(`could not load ${entry}: ${reason}${otherNode}`);
}
