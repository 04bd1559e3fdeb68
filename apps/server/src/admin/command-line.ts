import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** This package's entry, for when the process was not started as `node …/main.js` (tests, a wrapper). */
const MAIN = fileURLToPath(new URL("../main.js", import.meta.url));

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Whether the package.json npm is running a script of has a `tokens` script (the repository's root has). */
function hasTokensScript(packageJson: string): boolean {
  try {
    const scripts = (JSON.parse(readFileSync(packageJson, "utf8")) as { scripts?: Record<string, unknown> }).scripts;
    return typeof scripts?.tokens === "string";
  } catch {
    return false;
  }
}

/**
 * The `tokens` admin command as a person would type it where this process runs, for the messages
 * that tell them to: PLANTSTORE_ADMIN_COMMAND's prefix when it is set (the image sets `docker run
 * --rm -v plantdata:/data plantstore`: inside a container, the path of main.js is no command anyone
 * outside can run); `npm run tokens -- create` when the server was started by a package manager's
 * script next to a `tokens` script (`npm start` in a checkout); else `node <this main.js> tokens
 * create` as this process was started (a process manager, `node dist/main.js`).
 */
export function tokensCommand(args: string, env = process.env, argv = process.argv): string {
  const admin = env.PLANTSTORE_ADMIN_COMMAND?.trim();
  if (admin) return `${admin} tokens ${args}`;
  const packageJson = env.npm_lifecycle_event !== undefined ? env.npm_package_json : undefined;
  if (packageJson !== undefined && hasTokensScript(packageJson)) {
    const agent = env.npm_config_user_agent ?? "";
    if (agent.startsWith("pnpm/")) return `pnpm run tokens ${args}`;
    if (agent.startsWith("yarn/")) return `yarn run tokens ${args}`;
    return `npm run tokens -- ${args}`;
  }
  const script = argv[1] !== undefined && basename(argv[1]) === "main.js" ? argv[1] : MAIN;
  return `${shellWord(process.argv0 || "node")} ${shellWord(script)} tokens ${args}`;
}

/** A URL a person can call for a server bound to `host`: a wildcard address is not one. */
export function callableUrl(host: string, port: number): string {
  if (host === "0.0.0.0") return `http://127.0.0.1:${port}`;
  if (host === "::" || host === "[::]") return `http://localhost:${port}`;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
