import { fileURLToPath } from "node:url";

/** Paths resolved from this file, so the bench runs from any working directory (src/ under vitest, dist/ built). */
export const benchRoot = fileURLToPath(new URL("..", import.meta.url));
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const wrkScript = fileURLToPath(new URL("../lua/plants.lua", import.meta.url));
export const resultsDir = fileURLToPath(new URL("../results", import.meta.url));
/** Scratch space for profiles and smoke results: git-ignored. */
export const scratchDir = fileURLToPath(new URL("../results/tmp", import.meta.url));
export const serverMain = fileURLToPath(new URL("../../apps/server/dist/main.js", import.meta.url));

/** The compiled baseline files (the runner always starts the built JavaScript, as users run a server). */
export function baselineScript(name: string): string {
  return fileURLToPath(new URL(`../dist/baselines/${name}.js`, import.meta.url));
}
