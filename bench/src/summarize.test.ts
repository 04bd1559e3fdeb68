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
  it("marks each of the issue's targets met or missed", () => {
    expect(evaluateGoals(cells, { plantstore: 120 * 1024 })).toEqual([
      { goal: "creates/s vs fastify-durable", required: "≥ 2.00×", actual: "2.00×", met: true },
      { goal: "401s/s vs fastify-durable's 401s", required: "≥ 0.90×", actual: "0.75×", met: false },
      {
        goal: "creates/s with a webhook endpoint vs without",
        required: "≥ 0.80×",
        actual: "0.95×",
        met: true,
      },
      { goal: "p99 / p50 latency (create)", required: "≤ 3×", actual: "2.00×", met: true },
      { goal: "p99 / p50 latency (unauth)", required: "≤ 3×", actual: "2.00×", met: true },
      { goal: "peak RSS of plantstore over the whole run", required: "≤ 100 MiB", actual: "120.0 MiB", met: false },
    ]);
  });
  it("says nothing about what was not measured", () => {
    expect(evaluateGoals(cells.slice(3))).toEqual([]);
  });
});
