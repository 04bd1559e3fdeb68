// `pnpm --filter @plantstore/bench bench:profile`: run one target under load with `node --cpu-prof` and
import { randomBytes } from "node:crypto";
// summarise where its CPU time goes. `--analyze FILE` only summarises an existing .cpuprofile.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cliArguments } from "./cli-arguments.js";
import { renderProfileSummary, summarizeProfile, type CpuProfile } from "./cpu-profile.js";
import { repoRoot, scratchDir } from "./paths.js";
import { precreatePool } from "./probe.js";
import { installChildCleanup, stopProcess } from "./processes.js";
import { POOL_SCENARIOS, poolPlants, scenarios, type ScenarioName } from "./scenarios.js";
import { startTarget } from "./target-process.js";
import { startWebhookReceiver } from "./bench-services.js";
import { targetSpecs } from "./targets.js";
import { assertWrkInstalled, requestsPerSecond, runWrk } from "./wrk.js";

const POOL_SIZE = 1000;

async function profileTarget(targetName: string, scenario: ScenarioName, seconds: number): Promise<string> {
  const spec = targetSpecs.find((candidate) => candidate.name === targetName);
  if (spec === undefined) throw new Error(`unknown target ${targetName}`);
  if (!spec.scenarios.includes(scenario)) throw new Error(`${targetName} does not run the ${scenario} scenario`);
  assertWrkInstalled();
  const profileDir = join(scratchDir, "profiles", `${targetName}-${scenario}-${Date.now()}`);
  mkdirSync(profileDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), "plantstore-profile-"));
  installChildCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  // Plant Store wants 16–512 visible characters.
  const token = `profile-${randomBytes(16).toString("hex")}`;
  try {
    const receiver = spec.needsWebhookReceiver ? await startWebhookReceiver() : undefined;
    const target = await startTarget(spec, {
      workDir,
      token,
      cpu: 0,
      nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profileDir],
      webhookUrl: receiver?.url,
    });
    if (POOL_SCENARIOS.includes(scenario)) await precreatePool(target.url, token, poolPlants(POOL_SIZE));
    const result = await runWrk({
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
    console.log(
      `${targetName} ${scenario}: ${Math.round(requestsPerSecond(result))} req/s under the profiler, statuses ${JSON.stringify(result.statuses)}`,
    );
    // The profile is written when the process exits normally, so it must shut down on SIGTERM by itself.
    await stopProcess(target.child, 20_000);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
  if (file === undefined)
    throw new Error(`no .cpuprofile in ${profileDir}: did ${targetName} exit cleanly on SIGTERM?`);
  return join(profileDir, file);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: cliArguments(),
    options: {
      target: { type: "string", default: "plantstore" },
      scenario: { type: "string", default: "create" },
      duration: { type: "string", default: "15" },
      analyze: { type: "string" },
      limit: { type: "string", default: "25" },
    },
  });
  const scenario = values.scenario as ScenarioName;
  if (!scenarios.some((known) => known.name === scenario)) throw new Error(`unknown scenario ${values.scenario}`);
  const file =
    values.analyze ?? (await profileTarget(values.target ?? "plantstore", scenario, Number(values.duration)));
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const summary = summarizeProfile(profile, { repoRoot, limit: Number(values.limit) });
  const markdown = renderProfileSummary(
    summary,
    `CPU profile: ${values.analyze ? file : `${values.target}, ${scenario} scenario`}`,
  );
  const out = file.replace(/\.cpuprofile$/, ".md");
  writeFileSync(out, markdown);
  console.log(`${markdown}\nprofile: ${file}\nsummary: ${out}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:profile: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
