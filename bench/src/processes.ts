import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { connect, createServer } from "node:net";

/** Every child the bench started and has not seen exit: all of them are killed when the bench exits. */
const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** SIGKILL whatever is still running; synchronous, so it also works inside an 'exit' handler. */
export function killAllChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

let cleanupInstalled = false;

/**
 * Kill every child on any way out: normal exit, an uncaught error, Ctrl-C, SIGTERM, SIGHUP.
 * `onSignal` runs first for a signal (e.g. to remove temporary files).
 */
export function installChildCleanup(onSignal: () => void = () => {}): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", killAllChildren);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping every process it started`);
      killAllChildren();
      onSignal();
      process.exit(code);
    });
  }
}

export interface StartedProcess {
  child: ChildProcess;
  pid: number;
}

/** Start a long-running process (a server) with stdout and stderr appended to `logFile`. */
export function startLogged(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): StartedProcess {
  const log = openSync(logFile, "a");
  try {
    const child = track(spawn(command, args, { env, stdio: ["ignore", log, log] }));
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    return { child, pid: child.pid };
  } finally {
    closeSync(log);
  }
}

/** Ask a process to stop (SIGTERM), and SIGKILL it if it has not exited within `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Run a command to its end and return its stdout; reject on a non-zero exit or after `deadlineMs`.
 * `interrupt`, when aborted, sends the command SIGINT: for a command that still finishes its output then
 * (wrk prints its result), so a caller can end a run on a condition rather than after a time.
 */
export function runToCompletion(
  command: string,
  args: readonly string[],
  deadlineMs: number,
  interrupt?: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] }));
    const onInterrupt = () => child.kill("SIGINT");
    if (interrupt?.aborted) onInterrupt();
    else interrupt?.addEventListener("abort", onInterrupt, { once: true });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), deadlineMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${command}: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      interrupt?.removeEventListener("abort", onInterrupt);
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `${command} ${signal ? `was killed (${signal})` : `exited ${code}`}: ${stderr.trim() || stdout.trim()}`,
          ),
        );
    });
  });
}

/** Peak resident set size of a live process in KiB (VmHWM), or undefined when it cannot be read. */
export function peakRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on every mainstream Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a live process has used so far, in milliseconds, or undefined when it cannot be
 * read. CPU time per request stays meaningful when other work shares the machine; req/s does not.
 */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Starts counting a live process's CPU time: the function returned says how many ms it has used since, or undefined. */
export function startCpuMeter(pid: number): () => number | undefined {
  const before = cpuTimeMs(pid);
  return () => {
    const after = cpuTimeMs(pid);
    return before === undefined || after === undefined ? undefined : after - before;
  };
}

/** Server CPU µs per request over a load, or undefined when the CPU time or the requests are unknown. */
export function cpuUsPerRequest(cpuMs: number | undefined, requests: number): number | undefined {
  return cpuMs === undefined || requests === 0 ? undefined : (cpuMs * 1000) / requests;
}

/** A port that was free a moment ago on 127.0.0.1 (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Wait until something accepts connections on the port; fail early if the process exits first. */
export async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before listening`);
    }
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`did not listen on port ${port} within ${timeoutMs / 1000} s`);
}

/** One CPU's cumulative times from /proc/stat, in ms: busy (everything but idle and iowait) and steal. */
function cpuCoreTimesMs(core: number): { busyMs: number; stealMs: number } | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8")
      .split("\n")
      .find((row) => row.startsWith(`cpu${core} `));
    if (line === undefined) return undefined;
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const ticks = [user, nice, system, irq, softirq, steal];
    if (ticks.some((value) => value === undefined || !Number.isFinite(value))) return undefined;
    const toMs = (value: number) => (value * 1000) / CLOCK_TICKS_PER_SECOND;
    return { busyMs: toMs(user! + nice! + system! + irq! + softirq!), stealMs: toMs(steal!) };
  } catch {
    return undefined;
  }
}

/**
 * Starts watching one core: the function returned says how much of that core went, since, to anything
 * other than the process `pid` (other servers idling on it, kernel workers, PostgreSQL) and to the
 * hypervisor (steal), in ms. On a core the server is pinned to, this is the time its load did not get.
 */
export function startCoreMeter(core: number, pid: number): () => { othersMs: number; stealMs: number } | undefined {
  const before = cpuCoreTimesMs(core);
  const server = startCpuMeter(pid);
  return () => {
    const after = cpuCoreTimesMs(core);
    const serverMs = server();
    if (before === undefined || after === undefined || serverMs === undefined) return undefined;
    return {
      othersMs: Math.max(0, after.busyMs - before.busyMs - serverMs),
      stealMs: after.stealMs - before.stealMs,
    };
  };
}
