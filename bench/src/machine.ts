import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { repoRoot } from "./paths.js";

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  wrk: string;
  /** Filesystem type the databases are on: fsync costs differ wildly (tmpfs makes it free). */
  databaseFilesystem: string;
  /** 1-minute load average when the run started: other work on the machine skews the figures. */
  loadAverageAtStart: number;
  loadAverageAtEnd?: number;
  /** The commit measured (`-dirty` when the work tree had changes): figures belong to a version. */
  gitCommit: string;
}

function wrkVersion(): string {
  try {
    return firstWords(execFileSync("wrk", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (error) {
    // wrk --version prints its version and exits 1.
    const stdout = (error as { stdout?: string }).stdout ?? "";
    return firstWords(stdout);
  }
}

function filesystemOf(path: string): string {
  try {
    return execFileSync("findmnt", ["-n", "-o", "FSTYPE", "-T", path], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

/** The paths whose changes alter what the bench measures. */
const MEASURED_PATHS = ["apps/server", "packages/contract", "bench/src", "bench/lua"];

function git(args: readonly string[]): string {
  return execFileSync("git", ["-C", repoRoot, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
}

function gitCommit(): string {
  try {
    const dirty = git(["status", "--porcelain", "--", ...MEASURED_PATHS]) !== "";
    return `${git(["rev-parse", "--short", "HEAD"])}${dirty ? " + uncommitted changes in the server, contract or bench" : ""}`;
  } catch {
    return "unknown";
  }
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match?.[1]) return match[1].trim();
  } catch {
    // not Linux: fall back to what node reports
  }
  return cpus()[0]?.model ?? "unknown";
}

/** The 1-minute load average, rounded to hundredths. */
export function currentLoadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

export function describeMachine(databaseDir: string): MachineInfo {
  return {
    cpuModel: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    wrk: wrkVersion().trim(),
    databaseFilesystem: filesystemOf(databaseDir),
    loadAverageAtStart: currentLoadAverage(),
    gitCommit: gitCommit(),
  };
}

/** "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) …" → "wrk debian/4.1.0-3+b2". */
function firstWords(versionOutput: string): string {
  return versionOutput.split("\n")[0]?.split(" [")[0]?.trim() || "wrk (unknown version)";
}
