import type { CellResult, Goal, Ratio, RoundResult } from "./results.js";
import { REFUSAL_SCENARIOS, REFUSAL_STATUS, type ScenarioName } from "./scenarios.js";
import { median } from "./stats.js";
import type { TargetName } from "./targets.js";

function medianOfKnown(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length > 0 ? median(known) : undefined;
}

export function summarizeCell(target: TargetName, scenario: ScenarioName, rounds: RoundResult[]): CellResult {
  return {
    target,
    scenario,
    rounds,
    medianReqPerSec: median(rounds.map((round) => round.reqPerSec)),
    medianP50Ms: median(rounds.map((round) => round.p50Ms)),
    medianP99Ms: median(rounds.map((round) => round.p99Ms)),
    medianCpuUsPerRequest: medianOfKnown(rounds.map((round) => round.cpuUsPerRequest)),
    medianCpuShare: medianOfKnown(rounds.map((round) => round.cpuShare)),
    medianCoreOthersMs: medianOfKnown(rounds.map((round) => round.coreOthersMs)),
  };
}

function findCell(cells: readonly CellResult[], target: TargetName, scenario: ScenarioName): CellResult | undefined {
  return cells.find((cell) => cell.target === target && cell.scenario === scenario);
}

/**
 * One cell over another, round by round, and the median of those ratios. The two ran minutes apart
 * at most within a round but a whole pass apart between rounds, and on this shared machine the
 * machine's own speed drifts between rounds by more than most differences measured here (plain
 * creates 5,608–6,940 req/s in one run): a ratio within each round cancels that drift, a ratio of
 * two medians taken from different rounds does not.
 */
export function roundRatios(
  mine: CellResult,
  other: CellResult,
  value: (round: RoundResult) => number | undefined,
): { median: number; low: number; high: number } | undefined {
  const ratios: number[] = [];
  mine.rounds.forEach((round, index) => {
    const a = value(round);
    const b = other.rounds[index] === undefined ? undefined : value(other.rounds[index]);
    if (a !== undefined && b !== undefined && b > 0) ratios.push(a / b);
  });
  if (ratios.length === 0) return undefined;
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

const reqPerSec = (round: RoundResult) => round.reqPerSec;
const cpuUsPerRequest = (round: RoundResult) => round.cpuUsPerRequest;

/** Plant Store's req/s over each baseline's, round by round (median), for every scenario both ran. */
export function computeRatios(cells: readonly CellResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const ours of cells.filter((cell) => cell.target === "plantstore")) {
    // Baselines only: the plantstore-* variants are compared in the goals.
    const baselines = cells.filter((cell) => !cell.target.startsWith("plantstore") && cell.scenario === ours.scenario);
    for (const theirs of baselines) {
      const throughput = roundRatios(ours, theirs, reqPerSec);
      if (throughput !== undefined) {
        ratios.push({
          scenario: ours.scenario,
          baseline: theirs.target,
          ratio: throughput.median,
          cpuCostRatio: roundRatios(ours, theirs, cpuUsPerRequest)?.median,
        });
      }
    }
  }
  return ratios;
}

const times = (value: number) => `${value.toFixed(2)}×`;

/** One throughput target: a cell's req/s over another's, at least `required`. */
const THROUGHPUT_GOALS: ReadonlyArray<{
  goal: string;
  ours: [TargetName, ScenarioName];
  theirs: [TargetName, ScenarioName];
  required: number;
}> = [
  {
    goal: "creates/s vs fastify-durable",
    ours: ["plantstore", "create"],
    theirs: ["fastify-durable", "create"],
    required: 3,
  },
  {
    goal: "edits/s vs fastify-durable",
    ours: ["plantstore", "update"],
    theirs: ["fastify-durable", "update"],
    required: 2,
  },
  {
    goal: "creates/s on PostgreSQL vs fastify-pg",
    ours: ["plantstore-pg", "create"],
    theirs: ["fastify-pg", "create"],
    required: 2,
  },
  {
    // 0.8, not 0.9: a create with an endpoint writes its event's delivery row in its own commit, the
    // one model of events on both backends (0.9 was met with a second model on SQLite, an outbox
    // row per batch expanded later, which the hardening issue traded for simplicity).
    goal: "creates/s with a webhook endpoint vs without",
    ours: ["plantstore-webhooks", "create"],
    theirs: ["plantstore", "create"],
    required: 0.8,
  },
  {
    goal: "creates/s with 100 change streams open vs none",
    ours: ["plantstore-subscribers", "create"],
    theirs: ["plantstore", "create"],
    required: 0.9,
  },
  {
    goal: "creates/s with a rate limit vs without",
    ours: ["plantstore-ratelimited", "create"],
    theirs: ["plantstore", "create"],
    required: 0.95,
  },
  {
    goal: "creates/s with 10 million plants stored vs an empty store",
    ours: ["plantstore-10m", "create"],
    theirs: ["plantstore", "create"],
    required: 0.8,
  },
  {
    goal: "100-item page deep in 10 million plants vs the first page",
    ours: ["plantstore-10m", "list-deep"],
    theirs: ["plantstore-10m", "list"],
    required: 0.9,
  },
];

/**
 * One cost target (issue 37): a cell's server CPU per request over another's, at most `allowed`.
 * Costs, not req/s: what a request costs is ours to change, and it holds when other work shares
 * the machine, where req/s does not.
 */
const COST_GOALS: ReadonlyArray<{
  goal: string;
  ours: [TargetName, ScenarioName];
  theirs: [TargetName, ScenarioName];
  allowed: number;
}> = [
  { goal: "CPU of a replay vs a create", ours: ["plantstore", "replay"], theirs: ["plantstore", "create"], allowed: 1 },
  {
    goal: "CPU of a GET /plants/{id} vs a create",
    ours: ["plantstore", "get"],
    theirs: ["plantstore", "create"],
    allowed: 1,
  },
  {
    goal: "CPU of a 100-item page vs a GET",
    ours: ["plantstore", "list"],
    theirs: ["plantstore", "get"],
    allowed: 2.5,
  },
  ...REFUSAL_SCENARIOS.map((scenario) => ({
    goal: `CPU of a ${REFUSAL_STATUS[scenario as keyof typeof REFUSAL_STATUS]} (${scenario}) vs fastify-durable's 401`,
    ours: ["plantstore", scenario] as [TargetName, ScenarioName],
    theirs: ["fastify-durable", "unauth"] as [TargetName, ScenarioName],
    allowed: 2,
  })),
];

/** The scenarios whose tails are held to p99 ≤ 3× p50. */
const TAIL_SCENARIOS: readonly ScenarioName[] = ["create", "replay", "get", "unauth"];

const P99_OVER_P50_MAX = 3;
/** Plant Store's peak RSS over express-floor's, on the same Node in the same run. */
const PEAK_RSS_OVER_FLOOR_MAX = 1.25;

function describeRatio(ratio: { median: number; low: number; high: number }): string {
  return ratio.low.toFixed(2) === ratio.high.toFixed(2)
    ? times(ratio.median)
    : `${times(ratio.median)} (rounds ${ratio.low.toFixed(2)}–${times(ratio.high)})`;
}

/**
 * The issues' targets (performance round three, issue 37; change streams, issue 39; webhooks, rate
 * limits and the large store from earlier rounds), each met or missed; a target whose inputs were
 * not measured is left out.
 */
export function evaluateGoals(
  cells: readonly CellResult[],
  peakRssKiB: Partial<Record<TargetName, number | undefined>> = {},
): Goal[] {
  const goals: Goal[] = [];
  for (const { goal, ours, theirs, required } of THROUGHPUT_GOALS) {
    const mine = findCell(cells, ...ours);
    const other = findCell(cells, ...theirs);
    const ratio = mine === undefined || other === undefined ? undefined : roundRatios(mine, other, reqPerSec);
    if (ratio === undefined) continue;
    goals.push({ goal, required: `≥ ${times(required)}`, actual: describeRatio(ratio), met: ratio.median >= required });
  }
  for (const { goal, ours, theirs, allowed } of COST_GOALS) {
    const mine = findCell(cells, ...ours);
    const other = findCell(cells, ...theirs);
    const ratio = mine === undefined || other === undefined ? undefined : roundRatios(mine, other, cpuUsPerRequest);
    if (ratio === undefined) continue;
    goals.push({ goal, required: `≤ ${times(allowed)}`, actual: describeRatio(ratio), met: ratio.median <= allowed });
  }
  for (const cell of cells.filter(
    (candidate) => candidate.target === "plantstore" && TAIL_SCENARIOS.includes(candidate.scenario),
  )) {
    const spread = cell.medianP50Ms > 0 ? cell.medianP99Ms / cell.medianP50Ms : Number.POSITIVE_INFINITY;
    goals.push({
      goal: `p99 / p50 latency (${cell.scenario})`,
      required: `≤ ${P99_OVER_P50_MAX}×`,
      actual: times(spread),
      met: spread <= P99_OVER_P50_MAX,
    });
  }
  const rss = peakRssKiB.plantstore;
  const floor = peakRssKiB["express-floor"];
  if (rss !== undefined && floor !== undefined && floor > 0) {
    const ratio = rss / floor;
    goals.push({
      goal: "peak RSS of plantstore vs express-floor's, over the whole run",
      required: `≤ ${times(PEAK_RSS_OVER_FLOOR_MAX)}`,
      actual: `${times(ratio)} (${(rss / 1024).toFixed(1)} vs ${(floor / 1024).toFixed(1)} MiB)`,
      met: ratio <= PEAK_RSS_OVER_FLOOR_MAX,
    });
  }
  return goals;
}
