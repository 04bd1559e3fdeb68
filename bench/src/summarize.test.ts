import { describe, expect, it } from "vitest";
import type { RoundResult } from "./results.js";
import { computeRatios, evaluateGoals, roundRatios, summarizeCell } from "./summarize.js";

function round(
  reqPerSec: number,
  p50Ms = 1,
  p99Ms = 2,
  cpuUsPerRequest: number | undefined = 1e6 / reqPerSec,
): RoundResult {
  return {
    reqPerSec,
    p50Ms,
    p99Ms,
    requests: reqPerSec,
    statuses: { "200": reqPerSec },
    socketErrors: 0,
    timeouts: 0,
    cpuUsPerRequest,
    cpuShare: 1,
  };
}

const cells = [
  summarizeCell("plantstore", "create", [round(900), round(1000, 2, 9), round(1100)]),
  summarizeCell("plantstore", "unauth", [round(1500)]),
  summarizeCell("plantstore-webhooks", "create", [round(855), round(950), round(1045)]),
  summarizeCell("fastify-durable", "create", [round(450), round(500), round(550)]),
  summarizeCell("fastify-durable", "unauth", [round(2000)]),
  summarizeCell("naive", "create", [{ ...round(400), cpuUsPerRequest: undefined }]),
  summarizeCell("express-floor", "create", [round(1800)]),
];

describe("summarizeCell", () => {
  it("takes the median of each measure over the rounds", () => {
    expect(cells[0]).toMatchObject({
      medianReqPerSec: 1000,
      medianP50Ms: 1,
      medianP99Ms: 2,
      medianCpuUsPerRequest: 1000,
    });
  });
});

describe("computeRatios", () => {
  it("divides Plant Store by every baseline that ran the same scenario", () => {
    expect(computeRatios(cells)).toEqual([
      { scenario: "create", baseline: "fastify-durable", ratio: 2, cpuCostRatio: 0.5 },
      // naive's CPU time could not be read: no cost ratio rather than a wrong one.
      { scenario: "create", baseline: "naive", ratio: 2.25, cpuCostRatio: undefined },
      { scenario: "create", baseline: "express-floor", ratio: 0.5, cpuCostRatio: 2 },
      { scenario: "unauth", baseline: "fastify-durable", ratio: 0.75, cpuCostRatio: 1.3333333333333333 },
    ]);
  });
});

describe("roundRatios", () => {
  it("divides round by round, so that drift between rounds cancels", () => {
    // Round 3 ran on a machine half as fast (both cells slowed alike); round 2's variant was
    // disturbed. The medians come from different rounds (540 from a slow round against 1,000 from a
    // fast one) and say 0.54×; two rounds of three say 0.90×, and so does their median.
    const plain = summarizeCell("plantstore", "create", [round(1200), round(1000), round(600)]);
    const variant = summarizeCell("plantstore-webhooks", "create", [round(1080), round(540), round(540)]);
    expect(variant.medianReqPerSec / plain.medianReqPerSec).toBeCloseTo(0.54);
    expect(roundRatios(variant, plain, (r) => r.reqPerSec)).toEqual({ median: 0.9, low: 0.54, high: 0.9 });
  });
  it("skips rounds where either side is unknown, and answers nothing when none is left", () => {
    const mine = summarizeCell("plantstore", "create", [
      { ...round(100), cpuUsPerRequest: undefined },
      round(100, 1, 2, 50),
    ]);
    const theirs = summarizeCell("naive", "create", [round(100, 1, 2, 25), round(100, 1, 2, 10)]);
    expect(roundRatios(mine, theirs, (r) => r.cpuUsPerRequest)).toEqual({ median: 5, low: 5, high: 5 });
    expect(roundRatios(mine, summarizeCell("bare", "create", [round(0)]), (r) => r.reqPerSec)).toBeUndefined();
  });
});

describe("evaluateGoals", () => {
  it("marks each of the issues' targets met or missed: throughput ratios, CPU cost ratios, tails, memory", () => {
    expect(evaluateGoals(cells, { plantstore: 120 * 1024, "express-floor": 100 * 1024 })).toEqual([
      { goal: "creates/s vs fastify-durable", required: "≥ 3.00×", actual: "2.00×", met: false },
      {
        goal: "creates/s with a webhook endpoint vs without",
        required: "≥ 0.80×",
        actual: "0.95×",
        met: true,
      },
      // Plant Store's 401 costs 1e6/1500 µs, fastify-durable's 1e6/2000.
      { goal: "CPU of a 401 (unauth) vs fastify-durable's 401", required: "≤ 2.00×", actual: "1.33×", met: true },
      { goal: "p99 / p50 latency (create)", required: "≤ 3×", actual: "2.00×", met: true },
      { goal: "p99 / p50 latency (unauth)", required: "≤ 3×", actual: "2.00×", met: true },
      {
        goal: "peak RSS of plantstore vs express-floor's, over the whole run",
        required: "≤ 1.25×",
        actual: "1.20× (120.0 vs 100.0 MiB)",
        met: true,
      },
    ]);
  });
  it("holds a cost to at most its allowance, round by round", () => {
    const costs = [
      summarizeCell("plantstore", "create", [round(1000, 1, 2, 100), round(1000, 1, 2, 100)]),
      summarizeCell("plantstore", "get", [round(1000, 1, 2, 90), round(1000, 1, 2, 130)]),
      summarizeCell("plantstore", "list", [round(1000, 1, 2, 300), round(1000, 1, 2, 260)]),
    ];
    const goals = evaluateGoals(costs).filter((goal) => goal.goal.startsWith("CPU"));
    expect(goals).toEqual([
      {
        goal: "CPU of a GET /plants/{id} vs a create",
        required: "≤ 1.00×",
        actual: "1.10× (rounds 0.90–1.30×)",
        met: false,
      },
      {
        goal: "CPU of a 100-item page vs a GET",
        required: "≤ 2.50×",
        actual: "2.67× (rounds 2.00–3.33×)",
        met: false,
      },
    ]);
  });
  it("says nothing about what was not measured", () => {
    expect(evaluateGoals(cells.slice(3))).toEqual([]);
  });
});
