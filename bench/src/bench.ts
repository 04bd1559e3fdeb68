import { randomBytes } from "node:crypto";
import type { BenchResults, BenchSettings, CellResult, RoundResult, StreamResult } from "./results.js";
import { percentile } from "./stats.js";
import { openSubscribers, startLatencyProbe, type Subscribers } from "./subscribers.js";
import { currentLoadAverage, describeMachine } from "./machine.js";
import { checkRefusesWrongToken, precreatePool } from "./probe.js";
import { fillLargeStore } from "./large-store.js";
import { checkStatuses, listDeepAfter, POOL_SCENARIOS, poolPlants, type ScenarioName } from "./scenarios.js";
import { computeRatios, evaluateGoals, summarizeCell } from "./summarize.js";
import { startTarget, targetDatabasePath, targetPeakRssKiB, type RunningTarget } from "./target-process.js";
import type { TargetSpec } from "./targets.js";
import { requestsPerSecond, runWrk, type WrkResult } from "./wrk.js";
import { cpuTimeMs, cpuUsPerRequest, startCoreMeter, startCpuMeter, stopProcess } from "./processes.js";
import {
  createBenchDatabase,
  startWebhookReceiver,
  type BenchDatabase,
  type WebhookReceiver,
} from "./bench-services.js";

export interface BenchPlan {
  settings: BenchSettings;
  targets: readonly TargetSpec[];
  scenarios: readonly ScenarioName[];
  workDir: string;
  log: (line: string) => void;
}

const SERVER_CPU = 0;
const WRK_CPU = 1;
/** Ids of one wrk run are idBase + thread·2^30 + n; 2^36 apart keeps every run's ids apart (see plants.lua). */
const ID_STRIDE = 2 ** 36;
/** The latency probe's plants: -(2^40) and down, apart from the pool (-1 … -poolSize) and wrk's ids. */
const PROBE_FIRST_ID = -(2n ** 40n);

function toRound(
  result: WrkResult,
  cpuMs: number | undefined,
  core: { othersMs: number; stealMs: number } | undefined,
): RoundResult {
  return {
    cpuUsPerRequest: cpuUsPerRequest(cpuMs, result.requests),
    cpuShare: cpuMs === undefined || result.durationUs === 0 ? undefined : (cpuMs * 1000) / result.durationUs,
    reqPerSec: requestsPerSecond(result),
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    requests: result.requests,
    statuses: result.statuses,
    socketErrors: result.errors.connect + result.errors.read + result.errors.write,
    timeouts: result.errors.timeout,
    coreOthersMs: core?.othersMs,
    coreStealMs: core?.stealMs,
  };
}

/**
 * Waits until the receiver has every event of the creates acknowledged so far, at most 3 minutes: a
 * delivery still queued would use the server's core during the next cell (a receiver that merely
 * went quiet for a moment is not enough: a worker giving way to requests sends one at a time).
 */
async function drained(receiver: WebhookReceiver, expected: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (receiver.received() < expected) {
    if (Date.now() > deadline) {
      log(`  note: ${receiver.received()} of ${expected} webhook deliveries arrived within 3 minutes`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits until a server has gone quiet (under 5 ms of CPU in a quarter second), at most 10 seconds:
 * after a burst of deliveries its collector and the rest of its catching up would otherwise share
 * the pinned core with the next cell's server.
 */
async function quiet(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let before = cpuTimeMs(pid); Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = cpuTimeMs(pid);
    if (before === undefined || now === undefined || now - before < 5) return;
    before = now;
  }
}

function streamResult(target: RunningTarget, streams: Subscribers, samples: readonly number[]): StreamResult {
  return {
    target: target.spec.name,
    subscribers: target.spec.subscribers ?? 0,
    samples: samples.length,
    p50Ms: samples.length === 0 ? Number.NaN : percentile(samples, 50),
    p99Ms: samples.length === 0 ? Number.NaN : percentile(samples, 99),
    reopened: streams.reopened(),
    bytes: streams.bytes(),
  };
}

/**
 * The cells of one round: scenario by scenario, the targets in their listed order in odd rounds and
 * in reverse in even ones. Whatever a cell leaves behind on the shared core (a collector catching up,
 * a flush) lands on the cell after it; with the order turned every other round, no target always
 * follows the same one and no target always runs first, so those after-effects fall on each side of
 * a comparison alike instead of always on the same side.
 */
export function roundOrder<Cell extends { scenario: string }>(cells: readonly Cell[], round: number): Cell[] {
  if (round % 2 === 1) return [...cells];
  const scenarios = [...new Set(cells.map((cell) => cell.scenario))];
  return scenarios.flatMap((scenario) => cells.filter((cell) => cell.scenario === scenario).reverse());
}

/** Start every target, load each cell in interleaved rounds, and stop them all (also on failure). */
export async function runBench(plan: BenchPlan): Promise<BenchResults> {
  const { settings, log } = plan;
  const token = `bench-${randomBytes(16).toString("hex")}`;
  const machine = describeMachine(plan.workDir);
  const date = new Date().toISOString();
  const cpu = (which: number) => (settings.pinned ? which : undefined);
  const failures: string[] = [];
  if (machine.loadAverageAtStart > 1) {
    log(
      `note: load average ${machine.loadAverageAtStart} at start: other work shares these cores, figures will be noisy`,
    );
  }
  const running: RunningTarget[] = [];
  const databases: BenchDatabase[] = [];
  let receiver: WebhookReceiver | undefined;
  const subscribers = new Map<RunningTarget, Subscribers>();
  const latencies = new Map<RunningTarget, number[]>();
  let probeIds = 0n;
  let runIndex = 0;
  /** Creates the webhook targets answered 200: each one's event must reach the receiver. */
  let acknowledgedCreates = 0;
  try {
    for (const spec of plan.targets) {
      log(`starting ${spec.name}`);
      const database = spec.needsPostgres ? await createBenchDatabase() : undefined;
      if (database !== undefined) databases.push(database);
      if (spec.needsWebhookReceiver) receiver ??= await startWebhookReceiver();
      const options = {
        workDir: plan.workDir,
        token,
        cpu: cpu(SERVER_CPU),
        postgresUrl: database?.url,
        webhookUrl: receiver?.url,
      };
      if (spec.largeStore) {
        // The server makes its schema; the plants go in while it is stopped, then it starts on them.
        await stopProcess((await startTarget(spec, options)).child, 5000);
        const started = performance.now();
        fillLargeStore(targetDatabasePath(spec, plan.workDir), settings.largeStorePlants);
        log(
          `  filled ${spec.name} with ${settings.largeStorePlants.toLocaleString("en")} plants in ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
      }
      const target = await startTarget(spec, options);
      running.push(target);
      try {
        if (spec.checksToken) await checkRefusesWrongToken(target.url, token);
        if (spec.scenarios.some((scenario) => POOL_SCENARIOS.includes(scenario))) {
          await precreatePool(target.url, token, poolPlants(settings.poolSize));
        }
        if (spec.subscribers !== undefined) {
          subscribers.set(target, await openSubscribers(target.url, token, spec.subscribers));
          latencies.set(target, []);
        }
      } catch (error) {
        throw new Error(`${spec.name} answered wrongly before the load: ${(error as Error).message}`);
      }
    }
    const cells = plan.scenarios.flatMap((scenario) =>
      running.filter((target) => target.spec.scenarios.includes(scenario)).map((target) => ({ target, scenario })),
    );
    if (cells.length === 0) throw new Error("none of the chosen targets runs any of the chosen scenarios");
    const load = async (target: RunningTarget, scenario: ScenarioName, seconds: number, label: string) => {
      const cpuUsed = startCpuMeter(target.pid);
      const coreUsed = settings.pinned ? startCoreMeter(SERVER_CPU, target.pid) : () => undefined;
      const streams = subscribers.get(target);
      const probe =
        streams === undefined || label === "warm-up"
          ? undefined
          : startLatencyProbe(streams, () => PROBE_FIRST_ID - probeIds++);
      const result = await runWrk({
        url: target.url,
        scenario,
        token,
        // list-deep pages after the id given as its base.
        idBase: scenario === "list-deep" ? listDeepAfter(settings.largeStorePlants) : ++runIndex * ID_STRIDE,
        poolSize: settings.poolSize,
        connections: settings.connections,
        // A delete must follow the answer to its create: one connection per wrk thread (see plants.lua).
        threads: scenario === "delete" ? settings.connections : settings.wrkThreads,
        durationSeconds: seconds,
        cpu: cpu(WRK_CPU),
      });
      const cpuMs = cpuUsed();
      const core = coreUsed();
      if (probe !== undefined) latencies.get(target)?.push(...(await probe.stop()));
      // Deliveries still queued would go on using the server's core during the next cell's load.
      if (target.spec.needsWebhookReceiver && receiver !== undefined) {
        acknowledgedCreates += scenario === "create" ? (result.statuses["200"] ?? 0) : 0;
        await drained(receiver, acknowledgedCreates, log);
        await quiet(target.pid);
      }
      const round = toRound(result, cpuMs, core);
      const wrong = checkStatuses(scenario, result.statuses);
      if (wrong !== undefined) failures.push(`${target.spec.name} ${scenario} (${label}): ${wrong}`);
      if (round.socketErrors > 0)
        failures.push(`${target.spec.name} ${scenario} (${label}): ${round.socketErrors} socket errors`);
      if (target.child.exitCode !== null || target.child.signalCode !== null) {
        throw new Error(`${target.spec.name} exited during the ${scenario} load; see ${target.logFile}`);
      }
      log(
        `  ${label.padEnd(8)} ${target.spec.name.padEnd(16)} ${scenario.padEnd(9)} ${Math.round(round.reqPerSec).toString().padStart(7)} req/s  p50 ${round.p50Ms.toFixed(2)} ms  p99 ${round.p99Ms.toFixed(2)} ms  CPU ${round.cpuUsPerRequest?.toFixed(0) ?? "?"} µs/req${core === undefined ? "" : `  core ${SERVER_CPU}: others ${core.othersMs.toFixed(0)} ms, steal ${core.stealMs.toFixed(0)} ms`}`,
      );
      return round;
    };
    const rounds = new Map(cells.map((cell) => [cell, [] as RoundResult[]]));
    for (let round = 1; round <= settings.rounds; round++) {
      for (const cell of roundOrder(cells, round)) {
        // Warmed right before it is measured, every round: a server that sat idle while the other
        // cells ran starts slow (V8 shrank its heap and young generation while idle and re-grows them
        // under the load: measured, the first 2 s after a 25-40 s pause at up to twice the CPU per
        // request, p99s up to 465 ms), and Plant Store, loaded in every scenario, sat idle less than
        // its variants and the baselines.
        if (settings.warmupSeconds > 0) await load(cell.target, cell.scenario, settings.warmupSeconds, "warm-up");
        rounds.get(cell)?.push(await load(cell.target, cell.scenario, settings.durationSeconds, `round ${round}`));
      }
    }
    machine.loadAverageAtEnd = currentLoadAverage();
    const results: CellResult[] = cells.map((cell) =>
      summarizeCell(cell.target.spec.name, cell.scenario, rounds.get(cell) ?? []),
    );
    return {
      date,
      machine,
      settings,
      targets: running.map((target) => ({
        name: target.spec.name,
        description: target.spec.description,
        peakRssKiB: targetPeakRssKiB(target),
      })),
      cells: results,
      ratios: computeRatios(results),
      goals: evaluateGoals(
        results,
        Object.fromEntries(running.map((target) => [target.spec.name, targetPeakRssKiB(target)])),
      ),
      streams: [...subscribers].map(([target, streams]) => streamResult(target, streams, latencies.get(target) ?? [])),
      failures,
    };
  } finally {
    for (const streams of subscribers.values()) streams.close();
    await Promise.all(running.map((target) => stopProcess(target.child, 5000)));
    if (receiver !== undefined) log(`webhook receiver: ${receiver.received()} deliveries acknowledged`);
    await receiver?.close();
    for (const database of databases)
      await database.drop().catch((error: unknown) => log(`could not drop a bench database: ${String(error)}`));
  }
}
