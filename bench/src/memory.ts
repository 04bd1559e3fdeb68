// `pnpm --filter @plantstore/bench bench:memory`: how much memory Plant Store and express-floor hold
// on the Node that runs this script, idle and under load, for operators sizing a container. Run it
// once per Node version (`/path/to/node dist/memory.js`): every server is started with this
// script's own Node.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cliArguments } from "./cli-arguments.js";
import { precreatePool } from "./probe.js";
import { installChildCleanup, peakRssKiB, stopProcess } from "./processes.js";
import type { ScenarioName } from "./scenarios.js";
import { startTarget } from "./target-process.js";
import { targetSpecs, type TargetName } from "./targets.js";
import { assertWrkInstalled, runWrk } from "./wrk.js";

const POOL_SIZE = 1000;

function rssKiB(pid: number): number | undefined {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return kib === undefined ? undefined : Number(kib);
}

const mib = (kib: number | undefined) => (kib === undefined ? "?" : (kib / 1024).toFixed(1));

/**
 * One target: RSS after `idleSeconds` idle (started, nothing asked), then the peak RSS (VmHWM) over
 * its scenarios under wrk (50 connections, `seconds` each), and the RSS once they are over.
 */
async function measure(
  name: TargetName,
  scenarios: readonly ScenarioName[],
  seconds: number,
  idleSeconds: number,
): Promise<{ idle: number | undefined; peak: number | undefined; after: number | undefined }> {
  const spec = targetSpecs.find((candidate) => candidate.name === name)!;
  const workDir = mkdtempSync(join(tmpdir(), "plantstore-memory-"));
  const token = `memory-${randomBytes(16).toString("hex")}`;
  try {
    // A server starts in a second or two; on a machine others load, it has taken over 20 s.
    const target = await startTarget(spec, { workDir, token, cpu: 0, startTimeoutMs: 180_000 });
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idle = rssKiB(target.pid);
    if (scenarios.some((scenario) => scenario !== "create")) await precreatePool(target.url, token, POOL_SIZE);
    for (const scenario of scenarios.filter((candidate) => spec.scenarios.includes(candidate))) {
      await runWrk({
        url: target.url,
        scenario,
        token,
        idBase: 2 ** 40,
        poolSize: POOL_SIZE,
        connections: 50,
        threads: 1,
        durationSeconds: seconds,
        cpu: 1,
      });
    }
    const peak = peakRssKiB(target.pid);
    const after = rssKiB(target.pid);
    await stopProcess(target.child, 20_000);
    return { idle, peak, after };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: cliArguments(),
    options: {
      targets: { type: "string", default: "plantstore,express-floor" },
      scenarios: { type: "string", default: "create,get,list" },
      duration: { type: "string", default: "10" },
      idle: { type: "string", default: "5" },
    },
  });
  assertWrkInstalled();
  installChildCleanup();
  const scenarios = values.scenarios.split(",") as ScenarioName[];
  console.log(
    `Node ${process.version}: RSS idle (after ${values.idle} s), peak under load (${scenarios.join(", ")}, ${values.duration} s each, 50 connections), after the load; MiB`,
  );
  console.log("| Node | target | idle | peak under load | after load |\n|---|---|---:|---:|---:|");
  for (const name of values.targets.split(",") as TargetName[]) {
    const { idle, peak, after } = await measure(name, scenarios, Number(values.duration), Number(values.idle));
    console.log(`| ${process.version} | ${name} | ${mib(idle)} | ${mib(peak)} | ${mib(after)} |`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:memory: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
