// vitest globalSetup: builds the app (vite build) before the tests, so that they test the current
// source even when `vitest` is run by hand right after an edit (turbo's test task builds it too).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildApp(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const vite = fileURLToPath(new URL("../node_modules/vite/bin/vite.js", import.meta.url));
  const result = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: root,
    encoding: "utf8",
    // vitest sets NODE_ENV=test, which would make this React's development build.
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}${result.stderr}`);
}
