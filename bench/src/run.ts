// `pnpm bench` (full run, results to bench/results/latest.{json,md}) and `pnpm bench:smoke` (CI: a couple of
// seconds per target; exits 1 if a target fails to start or answers a wrong status).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cliArguments } from "./cli-arguments.js";
import { runBench } from "./bench.js";
import { renderMarkdown } from "./markdown.js";
import { resultsDir, scratchDir } from "./paths.js";
import { installChildCleanup } from "./processes.js";
import type { BenchSettings } from "./results.js";
import { LARGE_STORE_PLANTS, scenarios, type ScenarioName } from "./scenarios.js";
import { targetSpecs } from "./targets.js";
import { assertWrkInstalled } from "./wrk.js";
import { BENCH_POSTGRES_URL, postgresAvailable } from "./bench-services.js";
import { execFileSync } from "node:child_process";

const usage = `Usage: node dist/run.js [--smoke] [--rounds N] [--duration SECONDS] [--warmup SECONDS]
       [--connections N] [--threads N] [--targets a,b] [--scenarios create,replay,conflict,unauth,forbidden,notfound,method,get,list,list-deep,update,delete]
       [--large-store PLANTS] [--keep-temp]`;

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`--${name} must be a whole number, got ${value}`);
  return parsed;
}

function pick<T extends string>(name: string, value: string | undefined, known: readonly T[]): T[] {
  if (value === undefined) return [...known];
  const wanted = value.split(",").filter(Boolean);
  const unknown = wanted.filter((item) => !known.includes(item as T));
  if (unknown.length > 0) throw new Error(`--${name}: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`);
  return wanted as T[];
}

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: cliArguments(),
    options: {
      smoke: { type: "boolean", default: false },
      rounds: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      threads: { type: "string" },
      targets: { type: "string" },
      scenarios: { type: "string" },
      "keep-temp": { type: "boolean", default: false },
      "large-store": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  assertWrkInstalled();
  const smoke = values.smoke ?? false;
  const pinned = cpus().length >= 2 && hasTaskset();
  if (!pinned)
    console.warn("bench: fewer than 2 CPUs or no taskset: server and wrk run unpinned, figures are not comparable");
  // The bench's own work (the change streams it reads, the webhook receiver, the latency probe) runs
  // beside wrk on CPU 1, never on the servers' core, where it would be counted as "core to others".
  if (pinned) execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
  const settings: BenchSettings = {
    smoke,
    rounds: positiveInteger("rounds", values.rounds, smoke ? 1 : 5),
    durationSeconds: positiveInteger("duration", values.duration, smoke ? 1 : 5),
    warmupSeconds: positiveInteger("warmup", values.warmup, smoke ? 0 : 3),
    connections: positiveInteger("connections", values.connections, 50),
    wrkThreads: positiveInteger("threads", values.threads, 1),
    poolSize: smoke ? 200 : 1000,
    largeStorePlants: positiveInteger("large-store", values["large-store"], smoke ? 10_000 : LARGE_STORE_PLANTS),
    pinned,
  };
  if (settings.rounds < 1 || settings.durationSeconds < 1)
    throw new Error("--rounds and --duration must be at least 1");
  const targetNames = pick(
    "targets",
    values.targets,
    targetSpecs.map((spec) => spec.name),
  );
  const scenarioNames = pick<ScenarioName>(
    "scenarios",
    values.scenarios,
    scenarios.map((scenario) => scenario.name),
  );

  // The PostgreSQL targets run when PostgreSQL answers (CI has it); otherwise they are left out, in one line.
  let chosen = targetSpecs.filter((spec) => targetNames.includes(spec.name));
  if (chosen.some((spec) => spec.needsPostgres) && !(await postgresAvailable())) {
    const left = chosen.filter((spec) => spec.needsPostgres).map((spec) => spec.name);
    if (values.targets !== undefined || process.env.CI === "true") {
      throw new Error(
        `PostgreSQL does not answer at ${BENCH_POSTGRES_URL} (PLANTSTORE_BENCH_DATABASE_URL), needed by ${left.join(", ")}`,
      );
    }
    console.warn(`bench: PostgreSQL does not answer at ${BENCH_POSTGRES_URL}: leaving out ${left.join(", ")}`);
    chosen = chosen.filter((spec) => !spec.needsPostgres);
  }

  const workDir = mkdtempSync(join(tmpdir(), "plantstore-bench-"));
  const removeWorkDir = () => {
    if (!values["keep-temp"]) rmSync(workDir, { recursive: true, force: true });
  };
  installChildCleanup(removeWorkDir);
  try {
    const results = await runBench({
      settings,
      targets: chosen,
      scenarios: scenarioNames,
      workDir,
      log: (line) => console.log(line),
    });
    const outDir = smoke ? join(scratchDir, "smoke") : resultsDir;
    mkdirSync(outDir, { recursive: true });
    const markdown = renderMarkdown(results);
    writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(outDir, "latest.md"), markdown);
    console.log(`\n${markdown}\nwrote ${join(outDir, "latest.json")} and latest.md`);
    if (results.failures.length > 0) {
      console.error(
        `bench: ${results.failures.length} failure(s):\n${results.failures.map((f) => `  - ${f}`).join("\n")}`,
      );
      return 1;
    }
    return 0;
  } finally {
    if (values["keep-temp"]) console.log(`bench: databases and server logs kept in ${workDir}`);
    removeWorkDir();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
