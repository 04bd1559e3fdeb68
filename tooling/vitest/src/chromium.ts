// Suites that drive a real browser (the docs page, the web app): which Chromium, and how to start it.
import { availability, findOnPath, isExecutable, type Availability } from "./optional.js";

/**
 * The browser PLANTSTORE_CHROMIUM names, else `chromium` on PATH (Debian's: `apt-get install
 * chromium`): ready, skipped outside CI, or failed under CI=true, like every optional tool.
 */
export function chromiumTool(env: NodeJS.ProcessEnv = process.env): Availability<string> {
  const named = env.PLANTSTORE_CHROMIUM;
  const path = named ?? findOnPath("chromium", env.PATH);
  return availability(
    "Chromium",
    path !== undefined && isExecutable(path)
      ? { found: path }
      : {
          missing: named === undefined ? "Chromium not found" : `PLANTSTORE_CHROMIUM=${named} is not an executable`,
          hint: "install it with `apt-get install chromium`",
        },
    env,
  );
}

/**
 * The arguments for `chromium.launch({ executablePath, args })` (playwright-core, which runs it
 * headless): no GPU, nothing fetched in the background (so a test sees only the page's own
 * requests), and, as root (CI containers), no sandbox, which cannot start there.
 */
export function chromiumArgs(): string[] {
  return [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--no-first-run",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  ];
}
