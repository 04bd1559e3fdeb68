// Suites that need something a machine may lack (a program such as wrk or Chromium, a service such as
// PostgreSQL): on a developer's machine they are skipped, saying so in one line with how to get the
// missing thing; under CI=true they fail instead, so that CI never passes without running them.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, it } from "vitest";
import { skipMessage } from "./skip-announcement.js";

/** What a suite found of its prerequisite, and so what it does. */
export type Availability<T = void> =
  /** There: the suite runs, with what was found (a connection string, a path; nothing for most tools). */
  | { readonly kind: "ready"; readonly name: string; readonly value: T }
  /** Missing on a machine outside CI: the suite is skipped, and `message` says so in one line. */
  | { readonly kind: "skipped"; readonly name: string; readonly message: string }
  /** Missing under CI=true, or there but unusable: the suite fails with `message`. */
  | { readonly kind: "failed"; readonly name: string; readonly message: string };

/** What looking for the prerequisite found. */
export type Probe<T> =
  /** It is there. */
  | { readonly found: T }
  /** It is not (not installed, not configured): skip outside CI, fail under CI=true. */
  | {
      readonly missing: string;
      /** How to get it, e.g. "install it with `apt-get install wrk`". */ readonly hint?: string;
    }
  /** It is there but does not work (configured yet unreachable, say): fail, even outside CI. */
  | { readonly broken: string };

/** Decides what a suite does about its prerequisite `name` (e.g. "wrk", "PostgreSQL"). */
export function availability<T>(name: string, probe: Probe<T>, env: NodeJS.ProcessEnv = process.env): Availability<T> {
  if ("found" in probe) return { kind: "ready", name, value: probe.found };
  if ("broken" in probe) return { kind: "failed", name, message: probe.broken };
  const { missing, hint } = probe;
  return env.CI === "true"
    ? { kind: "failed", name, message: `${missing}, and CI=true requires the ${name} tests${hint ? `: ${hint}` : ""}` }
    : { kind: "skipped", name, message: skipMessage(name, missing, hint) };
}

export interface OptionalTool {
  /** The program, as the messages name it: "wrk". */
  name: string;
  /** Whether it can be run here, e.g. `() => findOnPath("wrk") !== undefined`. */
  isAvailable: () => boolean;
  /** The command that installs it: "apt-get install wrk". */
  install: string;
}

/** `availability` for a program: "wrk not found: skipping the wrk tests (install it with `apt-get install wrk`)". */
export function optionalTool(tool: OptionalTool, env: NodeJS.ProcessEnv = process.env): Availability {
  return availability<void>(
    tool.name,
    tool.isAvailable()
      ? { found: undefined }
      : { missing: `${tool.name} not found`, hint: `install it with \`${tool.install}\`` },
    env,
  );
}

/** The first executable file `command` in PATH's directories, or undefined (nothing is run). */
export function findOnPath(command: string, path: string | undefined = process.env.PATH): string | undefined {
  return (path ?? "")
    .split(delimiter)
    .filter(Boolean)
    .map((directory) => join(directory, command))
    .find(isExecutable);
}

/** Whether `file` exists and may be run. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const announced = new Set<string>();

/**
 * Prints a skip once per test file, however many suites it skips; vitestPreset's onConsoleLog then
 * prints it once per run, however many files skip for the same reason.
 */
function announce(message: string): void {
  if (announced.has(message)) return;
  announced.add(message);
  console.warn(message);
}

/**
 * `describe(name, () => body(value))` when the prerequisite is ready. When it is skipped, the suite is
 * a `describe.skip` (its tests are listed as skipped; `body` is called with no value to list them, so
 * read `value` only inside tests and hooks) and the skip is announced in one line. When it failed, the
 * suite is one failing test whose error is the message.
 */
export function describeWith<T>(requirement: Availability<T>, name: string, body: (value: T) => void): void {
  switch (requirement.kind) {
    case "ready":
      describe(name, () => body(requirement.value));
      return;
    case "skipped":
      announce(requirement.message);
      // Skipped on purpose: the prerequisite is missing outside CI (announced above in one line); under
      // CI=true it is the "failed" case below instead, so CI never passes without running the suite.
      // The suite's name carries the reason, so a test report says why it was skipped.
      describe.skip(`${name} (skipped: ${requirement.message})`, () => body(undefined as T));
      return;
    case "failed":
      describe(name, () => {
        it(`needs ${requirement.name}`, () => {
          throw new Error(requirement.message);
        });
      });
      return;
  }
}
