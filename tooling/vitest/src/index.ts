import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { onceForSkipAnnouncements } from "./skip-announcement.js";

export type { Equal, Expect } from "./type-tests.js";

/** What differs between the packages' test set-ups; everything else is the same everywhere. */
export interface VitestPresetOptions {
  /**
   * Build the package (`tsc -p tsconfig.build.json`, incremental) before its tests: for tests that
   * run its dist/ (a spawned `node dist/main.js`, a worker thread started from dist/).
   */
  buildFirst?: boolean;
  /** Per-test timeout in ms (vitest's default: 5 000). */
  testTimeout?: number;
  /** Per-hook timeout in ms (vitest's default: 10 000). */
  hookTimeout?: number;
  /** false runs the test files one at a time (suites that start servers, spawn processes, pin cores). */
  fileParallelism?: boolean;
  /** More vitest globalSetup modules, relative to the package; they run after the buildFirst build. */
  globalSetup?: string[];
  /** vitest setup files, relative to the package: run in every test worker before its tests. */
  setupFiles?: string[];
}

const buildFirstSetup = fileURLToPath(new URL("./build-first.js", import.meta.url));

/**
 * The one vitest configuration of the workspace: tests beside the code (`src/**\/*.test.ts`, plus
 * `test/**\/*.test.ts`), and type tests (`*.test-d.ts`) checked by vitest's typecheck mode, which runs
 * tsc over the package's tsconfig.json: a type error anywhere in the package fails the run too.
 */
export function vitestPreset(options: VitestPresetOptions = {}): ViteUserConfig {
  const { buildFirst = false, globalSetup = [], setupFiles = [], ...timing } = options;
  return defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      typecheck: {
        enabled: true,
        include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"],
        tsconfig: "tsconfig.json",
      },
      globalSetup: [...(buildFirst ? [buildFirstSetup] : []), ...globalSetup],
      setupFiles,
      // A suite skipped for want of an optional tool says so once per run, not once per test file.
      onConsoleLog: onceForSkipAnnouncements(),
      // expect.poll waits for a condition; vitest's default gives up after 1 s, a clock that a busy
      // machine outruns (a debounced search in Chromium took longer there). A condition that never
      // comes still fails, at the test's own timeout at the latest.
      expect: { poll: { timeout: 30_000 } },
      ...timing,
    },
  });
}
