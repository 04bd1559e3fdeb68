// `pnpm soak [--minutes N]`: Plant Store as users run it under a mixed load (creates, replays,
// conflicts, gets, list pages, deletes, 401s) for N minutes (default 10), one wrk run per minute.
// Reports per minute: throughput, the server's CPU time per request, p99, the server's RSS (sampled
// every 2 s, the minute's largest) and its event-loop delay p99 (from /metrics), and every answer whose
// status was unexpected. Writes results/soak.{md,json}; exits 1 when a target is missed.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { cliArguments } from "./cli-arguments.js";
import { describeMachine } from "./machine.js";
import { resultsDir } from "./paths.js";
import { precreatePool } from "./probe.js";
import { cpuUsPerRequest, installChildCleanup, runToCompletion, startCpuMeter, stopProcess } from "./processes.js";
import { judgeSoak, renderSoak, type SoakMinute } from "./soak-judge.js";
import { startTarget } from "./target-process.js";
import { targetSpecs } from "./targets.js";
import { assertWrkInstalled } from "./wrk.js";

const soakScript = fileURLToPath(new URL("../lua/soak.lua", import.meta.url));
const CONNECTIONS = 16;
const POOL_SIZE = 1000;

function rssMiB(pid: number): number | undefined {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

async function eventLoopP99Ms(url: string, token: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    const seconds = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1];
    return seconds === undefined ? undefined : Number(seconds) * 1000;
  } catch {
    return undefined;
  }
}

interface SoakResult {
  requests: number;
  durationUs: number;
  p99Us: number;
  socketErrors: number;
  counts: Record<string, number>;
  unexpected: Record<string, number>;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: cliArguments(),
    options: { minutes: { type: "string", default: "10" }, output: { type: "string" } },
  });
  const minutes = Number(values.minutes);
  if (!(minutes > 0 && minutes <= 24 * 60))
    throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
  assertWrkInstalled();
  const segmentSeconds = Math.max(1, Math.round(Math.min(60, minutes * 60)));
  const segments = Math.max(1, Math.round((minutes * 60) / segmentSeconds));

  const workDir = mkdtempSync(join(tmpdir(), "plantstore-soak-"));
  installChildCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  const token = `soak-${randomBytes(16).toString("hex")}`;
  const spec = targetSpecs.find((candidate) => candidate.name === "plantstore")!;
  const target = await startTarget(spec, { workDir, token, cpu: 0 });
  const machine = describeMachine(workDir);
  const rows: SoakMinute[] = [];
  try {
    await precreatePool(target.url, token, POOL_SIZE);
    await eventLoopP99Ms(target.url, token); // start the first minute's histogram afresh
    for (let segment = 1; segment <= segments; segment++) {
      let maxRss = rssMiB(target.pid) ?? 0;
      const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMiB(target.pid) ?? 0)), 2_000);
      const args = [
        `-t${CONNECTIONS}`,
        `-c${CONNECTIONS}`,
        `-d${segmentSeconds}s`,
        "--timeout",
        "5s",
        "-s",
        soakScript,
        target.url,
        "--",
        token,
        String(segment * 2 ** 36),
        String(POOL_SIZE),
      ];
      const cpuUsed = startCpuMeter(target.pid);
      const stdout = await runToCompletion(
        "taskset",
        ["-c", "1", "wrk", ...args],
        (segmentSeconds + 30) * 1000,
      ).finally(() => clearInterval(sampler));
      const line = /^SOAK_RESULT (.*)$/m.exec(stdout)?.[1];
      if (line === undefined) throw new Error(`wrk printed no SOAK_RESULT:\n${stdout}`);
      const result = JSON.parse(line) as SoakResult;
      const cpuMs = cpuUsed();
      if (target.child.exitCode !== null)
        throw new Error(`the server exited during minute ${segment}; see ${target.logFile}`);
      const row: SoakMinute = {
        minute: segment,
        reqPerSec: result.requests / (result.durationUs / 1e6),
        cpuUsPerRequest: cpuUsPerRequest(cpuMs, result.requests),
        rssMiB: Math.max(maxRss, rssMiB(target.pid) ?? 0),
        eventLoopP99Ms: await eventLoopP99Ms(target.url, token),
        p99Ms: result.p99Us / 1000,
        unexpected: result.unexpected,
        socketErrors: result.socketErrors,
      };
      rows.push(row);
      console.log(
        `minute ${segment}: ${Math.round(row.reqPerSec)} req/s, CPU ${row.cpuUsPerRequest?.toFixed(0) ?? "?"} µs/req, p99 ${row.p99Ms.toFixed(2)} ms, RSS ${row.rssMiB.toFixed(1)} MiB, event-loop p99 ${row.eventLoopP99Ms?.toFixed(1) ?? "?"} ms, unexpected ${JSON.stringify(row.unexpected)}, mix ${JSON.stringify(result.counts)}`,
      );
    }
  } finally {
    await stopProcess(target.child, 5_000);
  }
  const verdicts = judgeSoak(rows);
  const header = `${new Date().toISOString()} · ${machine.cpuModel}, ${machine.cores} cores · Node ${process.version} · commit ${machine.gitCommit} · ${segments} × ${segmentSeconds} s, ${CONNECTIONS} connections (one per wrk thread), server on CPU 0, wrk on CPU 1 · mix: 30 % creates, 15 % replays, 10 % conflicts, 20 % gets, 10 % list pages, 10 % deletes, 5 % 401s`;
  const markdown = renderSoak(rows, verdicts, header);
  const output = values.output ?? resultsDir;
  writeFileSync(join(output, "soak.md"), markdown);
  writeFileSync(join(output, "soak.json"), `${JSON.stringify({ header, minutes: rows, verdicts }, null, 2)}\n`);
  console.log(`\n${markdown}\nwrote ${join(output, "soak.md")} and soak.json`);
  rmSync(workDir, { recursive: true, force: true });
  return verdicts.every((verdict) => verdict.met) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
