// @ts-check
// Which Node.js runs Plant Store: the maintained LTS lines, and nothing that is past its end of life.
// Plain JavaScript on purpose, written once for three callers: `npm start` and `npm test` import it
// from source before anything is installed or built (tooling/scripts/), on whatever Node the user
// has, and the server's entry imports it first of all. The same lines are package.json's `engines`
// (a test holds the two together).

/** The supported LTS lines, each with its lowest release (22.13: the pinned pnpm's own floor). */
export const SUPPORTED_LINES = Object.freeze([
  { major: 22, minor: 13 },
  { major: 24, minor: 0 },
  { major: 26, minor: 0 },
]);

/**
 * What to say about this Node: `refuse` (too old: the SQLite addon and the tools need 22.13),
 * `warn` (a newer or short-lived line it is not tested on), or nothing.
 * @param {string} version `process.versions.node`, e.g. "20.20.2"
 * @returns {{ refuse: string } | { warn: string } | null}
 */
export function judgeNode(version) {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const lines = SUPPORTED_LINES.map((line) => line.major);
  const wanted = `Plant Store needs Node.js ${lines.slice(0, -1).join(", ")} or ${lines.at(-1)}`;
  const line = SUPPORTED_LINES.find((l) => l.major === major);
  if (line !== undefined) {
    return minor >= line.minor
      ? null
      : { refuse: `${wanted}; this is Node ${version}: update to ${line.major}.${line.minor} or later` };
  }
  // Every line before the oldest supported one is past its end of life (Node 20's ended 2026-04-30).
  if (major < (SUPPORTED_LINES[0]?.major ?? 0))
    return { refuse: `${wanted}; this is Node ${version}, past its end of life` };
  return { warn: `Plant Store is tested on Node.js ${lines.join(", ")}; this is Node ${version}` };
}

/**
 * Refuses an unsupported Node with one line on standard error and exit status 1; warns once for an
 * untested one. `who` names the command the user ran ("npm start").
 * @param {string} who
 */
export function requireSupportedNode(who) {
  const verdict = judgeNode(process.versions.node);
  if (verdict === null) return;
  if ("refuse" in verdict) {
    process.stderr.write(`${who}: ${verdict.refuse}\n`);
    process.exit(1);
  }
  process.stderr.write(`${who}: warning: ${verdict.warn}\n`);
}
