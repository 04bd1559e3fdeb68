import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The server package's directory (this file is its src/ or dist/). */
const PACKAGE_DIRECTORY = fileURLToPath(new URL("..", import.meta.url));

/**
 * Where the SQLite database is when DATABASE_URL is not set: one place whatever the working
 * directory, so that `node dist/main.js` started anywhere and the `tokens` command run from
 * anywhere use the same file. In a checkout (the package is apps/server of the pnpm workspace)
 * that is the repository's data/plantstore.db; in an installed or deployed copy, data/plantstore.db
 * in the package's own directory.
 */
export function defaultDatabasePath(packageDirectory = PACKAGE_DIRECTORY): string {
  const repository = resolve(packageDirectory, "..", "..");
  const inCheckout = existsSync(join(repository, "pnpm-workspace.yaml"));
  return join(inCheckout ? repository : resolve(packageDirectory), "data", "plantstore.db");
}
