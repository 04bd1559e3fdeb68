import { execFileSync } from "node:child_process";
import type { ScenarioName } from "./scenarios.js";
import { runToCompletion } from "./processes.js";
import { wrkScript } from "./paths.js";

/** What one wrk run measured (the Lua script's done() line). */
export interface WrkResult {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  errors: { connect: number; read: number; write: number; timeout: number };
  statuses: Record<string, number>;
}

export interface WrkRun {
  url: string;
  scenario: ScenarioName;
  token: string;
  /** First id of this run's new ids; a fresh one per run keeps ids unique across rounds. */
  idBase: number;
  poolSize: number;
  connections: number;
  threads: number;
  /** How long wrk runs, unless `stop` ends it first. */
  durationSeconds: number;
  /** Ends the run early when aborted (wrk, sent SIGINT, still prints its result): to stop on a count, not a time. */
  stop?: AbortSignal;
  /** CPU to pin wrk to, or undefined to leave it unpinned. */
  cpu: number | undefined;
}

/** How to get wrk, for the messages that say it is missing. */
export const WRK_INSTALL = "apt-get install wrk";

/** The one line `pnpm bench` stops with when wrk is missing (scripts/require-wrk.mjs says the same). */
export const WRK_MISSING = `wrk not found: install it with \`${WRK_INSTALL}\` (Debian/Ubuntu) and run again`;

/** Whether wrk can be run here. */
export function wrkInstalled(): boolean {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version: only a missing binary means no wrk.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

export function assertWrkInstalled(): void {
  if (!wrkInstalled()) throw new Error(WRK_MISSING);
}

export function parseWrkOutput(stdout: string): WrkResult {
  const line = stdout.split("\n").find((candidate) => candidate.startsWith("WRK_RESULT "));
  if (line === undefined) throw new Error(`wrk printed no result line; its output was:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(line.slice("WRK_RESULT ".length)) as WrkResult;
}

export function requestsPerSecond(result: WrkResult): number {
  return result.durationUs > 0 ? result.requests / (result.durationUs / 1e6) : 0;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const wrkArgs = [
    `-t${run.threads}`,
    `-c${run.connections}`,
    `-d${run.durationSeconds}s`,
    "--timeout",
    "5s",
    "-s",
    wrkScript,
    run.url,
    "--",
    run.scenario,
    run.token,
    String(run.idBase),
    String(run.poolSize),
  ];
  const [command, args] =
    run.cpu === undefined ? ["wrk", wrkArgs] : ["taskset", ["-c", String(run.cpu), "wrk", ...wrkArgs]];
  // wrk stops by itself after its duration (or at `stop`); the deadline only catches a hung wrk.
  const stdout = await runToCompletion(command, args, (run.durationSeconds + 30) * 1000, run.stop);
  return parseWrkOutput(stdout);
}
