// vitest globalSetup of `vitestPreset({ buildFirst: true })`: builds the package under test before its
// tests, so tests that run its dist/ (a spawned `node dist/main.js`, a worker thread started from
// dist/) run the current source even when `vitest` is run by hand right after an edit.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

/** What this setup reads of vitest's TestProject. */
interface Project {
  config: { root: string };
}

export default function buildFirst(project: Project): void {
  const root = project.config.root;
  // The package's own TypeScript, as its `build` script would run it. The build is incremental
  // (@plantstore/tsconfig/build.json): when dist/ is up to date tsc writes nothing, which matters
  // because turbo runs other packages' tests at the same time and they read this dist/.
  const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, encoding: "utf8" });
  if (result.error !== undefined) throw new Error(`buildFirst: could not run tsc: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `buildFirst: \`tsc -p tsconfig.build.json\` failed in ${root}, so the tests would run a stale dist/:\n${result.stdout}${result.stderr}`,
    );
  }
}
