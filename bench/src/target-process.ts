import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { freePort, peakRssKiB, startLogged, stopProcess, waitForPort } from "./processes.js";
import type { TargetSpec } from "./targets.js";

export interface RunningTarget {
  spec: TargetSpec;
  url: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
}

export interface StartOptions {
  workDir: string;
  token: string;
  /** CPU to pin the server to, or undefined to leave it unpinned. */
  cpu: number | undefined;
  nodeArgs?: readonly string[];
  startTimeoutMs?: number;
  /** For targets that need them: a fresh PostgreSQL database, a webhook receiver. */
  postgresUrl?: string;
  webhookUrl?: string;
}

function logTail(logFile: string): string {
  try {
    const lines = readFileSync(logFile, "utf8").trimEnd().split("\n");
    return lines.slice(-15).join("\n");
  } catch {
    return "(no log)";
  }
}

/** The SQLite file (or baseline's database file) a target runs on. */
export function targetDatabasePath(spec: TargetSpec, workDir: string): string {
  return join(workDir, `${spec.name}.db`);
}

/** Start a target on a free port with its database file; resolve once it accepts connections. */
export async function startTarget(spec: TargetSpec, options: StartOptions): Promise<RunningTarget> {
  if (!existsSync(spec.script)) {
    throw new Error(
      `${spec.name}: ${spec.script} does not exist. Build first: \`pnpm bench\` from the repository root builds everything it needs.`,
    );
  }
  const port = await freePort();
  const dbPath = targetDatabasePath(spec, options.workDir);
  const logFile = join(options.workDir, `${spec.name}.log`);
  const nodeCommand = [process.execPath, ...(options.nodeArgs ?? []), spec.script];
  const [command, ...args] =
    options.cpu === undefined ? nodeCommand : ["taskset", "-c", String(options.cpu), ...nodeCommand];
  const { token, postgresUrl, webhookUrl } = options;
  const env = { PATH: process.env.PATH, ...spec.env({ port, dbPath, token, postgresUrl, webhookUrl }) };
  const { child, pid } = startLogged(command as string, args, env, logFile);
  try {
    await waitForPort(port, child, options.startTimeoutMs ?? 20_000);
  } catch (error) {
    await stopProcess(child, 1000);
    throw new Error(
      `${spec.name} failed to start: ${(error as Error).message}\nlast lines of ${logFile}:\n${logTail(logFile)}`,
    );
  }
  return { spec, url: `http://127.0.0.1:${port}`, pid, child, logFile };
}

export function targetPeakRssKiB(target: RunningTarget): number | undefined {
  return peakRssKiB(target.pid);
}
