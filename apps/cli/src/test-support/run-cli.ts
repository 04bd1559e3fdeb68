import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built command, run as users run it (the vitest preset builds it first: buildFirst). */
export const CLI_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  /** Everything written to standard error so far. */
  stderr(): string;
  finished: Promise<CliRun>;
}

/**
 * Starts the command. `stdin` is written to its standard input, which is then closed, unless
 * `keepStdinOpen` (the test writes to `child.stdin` itself, as a producer that is still running).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin?: string,
  options: { keepStdinOpen?: boolean } = {},
): CliProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { ...process.env, PLANTSTORE_URL: undefined, PLANTSTORE_TOKEN: undefined, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  if (options.keepStdinOpen) {
    // The command may exit before reading everything: a closed pipe is not the test's failure.
    child.stdin?.on("error", () => undefined);
    if (stdin !== undefined) child.stdin?.write(stdin);
  } else child.stdin?.end(stdin);
  const finished = new Promise<CliRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stderr: () => stderr, finished };
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<CliRun> {
  return spawnCli(args, env, stdin).finished;
}
