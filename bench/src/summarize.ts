import type { CellResult, Goal, Ratio, RoundResult } from "./results.js";
import type { ScenarioName } from "./scenarios.js";
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
  };
}

function findCell(cells: readonly CellResult[], target: TargetName, scenario: ScenarioName): CellResult | undefined {
  return cells.find((cell) => cell.target === target && cell.scenario === scenario);
}

/** Plant Store's median req/s over each baseline's, for every scenario both ran. */
export function computeRatios(cells: readonly CellResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const ours of cells.filter((cell) => cell.target === "plantstore")) {
    for (const theirs of cells.filter((cell) => cell.target !== "plantstore" && cell.scenario === ours.scenario)) {
      if (theirs.medianReqPerSec > 0) {
        const ourCost = ours.medianCpuUsPerRequest;
        const theirCost = theirs.medianCpuUsPerRequest;
        ratios.push({
          scenario: ours.scenario,
          baseline: theirs.target,
          ratio: ours.medianReqPerSec / theirs.medianReqPerSec,
          cpuCostRatio: ourCost !== undefined && theirCost ? ourCost / theirCost : undefined,
        });
      }
    }
  }
  return ratios;
}

const times = (value: number) => `${value.toFixed(2)}×`;

/** The targets, each met or missed; a target whose inputs were not measured is left out. */
export function evaluateGoals(cells: readonly CellResult[]): Goal[] {
  const goals: Goal[] = [];
  const create = findCell(cells, "plantstore", "create");
  if (create === undefined) return goals;
  for (const [baseline, required] of [
    ["fastify-durable", 1.0],
    ["naive", 2.0],
    ["express-floor", 0.8],
  ] as const) {
    const theirs = findCell(cells, baseline, "create");
    if (theirs === undefined || theirs.medianReqPerSec === 0) continue;
    const ratio = create.medianReqPerSec / theirs.medianReqPerSec;
    goals.push({
      goal: `creates/s vs ${baseline}`,
      required: `≥ ${times(required)}`,
      actual: times(ratio),
      met: ratio >= required,
    });
  }
  for (const cell of cells.filter((candidate) => candidate.target === "plantstore")) {
    const spread = cell.medianP50Ms > 0 ? cell.medianP99Ms / cell.medianP50Ms : Number.POSITIVE_INFINITY;
    goals.push({
      goal: `p99 / p50 latency (${cell.scenario})`,
      required: "≤ 4×",
      actual: times(spread),
      met: spread <= 4,
    });
  }
  const unauth = findCell(cells, "plantstore", "unauth");
  if (unauth !== undefined && create.medianReqPerSec > 0) {
    const ratio = unauth.medianReqPerSec / create.medianReqPerSec;
    goals.push({ goal: "401s/s vs creates/s", required: "≥ 2.00×", actual: times(ratio), met: ratio >= 2 });
  }
  return goals;
}
