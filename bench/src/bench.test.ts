import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, describe, expect, it } from "vitest";
import { roundOrder, runBench } from "./bench.js";
import type { BenchSettings } from "./results.js";
import { targetSpecs, type TargetSpec } from "./targets.js";
import { wrk } from "./test-support/wrk.js";

const workDir = mkdtempSync(join(tmpdir(), "bench-runner-test-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const settings: BenchSettings = {
  smoke: true,
  rounds: 1,
  durationSeconds: 1,
  warmupSeconds: 0,
  connections: 4,
  wrkThreads: 1,
  poolSize: 10,
  largeStorePlants: 1000,
  pinned: false,
};

describe("roundOrder", () => {
  const cells = [
    { target: "a", scenario: "create" },
    { target: "b", scenario: "create" },
    { target: "c", scenario: "create" },
    { target: "a", scenario: "get" },
    { target: "c", scenario: "get" },
  ];
  it("keeps the listed order in odd rounds and turns each scenario's targets round in even ones", () => {
    const names = (round: number) => roundOrder(cells, round).map((cell) => `${cell.scenario}:${cell.target}`);
    expect(names(1)).toEqual(["create:a", "create:b", "create:c", "get:a", "get:c"]);
    expect(names(2)).toEqual(["create:c", "create:b", "create:a", "get:c", "get:a"]);
    expect(names(3)).toEqual(names(1));
  });
});

function spec(name: TargetSpec["name"]): TargetSpec {
  const found = targetSpecs.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no target ${name}`);
  return found;
}

describeWith(wrk, "runBench under load", () => {
  it("measures each cell and reports a target that answers the wrong statuses", async () => {
    // express-floor answers 200 to everything, so a 401 flood against it must be reported.
    const liar: TargetSpec = { ...spec("express-floor"), scenarios: ["create", "unauth"] };
    const results = await runBench({
      settings,
      targets: [liar],
      scenarios: ["create", "unauth"],
      workDir,
      log: () => {},
    });
    expect(results.cells.map((cell) => [cell.scenario, cell.medianReqPerSec > 0])).toEqual([
      ["create", true],
      ["unauth", true],
    ]);
    expect(results.failures).toEqual([
      expect.stringMatching(/^express-floor unauth \(round 1\): expected only 401, got \d+× 200$/),
    ]);
    expect(results.targets[0]?.peakRssKiB).toBeGreaterThan(1000);
  });
});

describeWith(wrk, "runBench with change streams open", () => {
  it("keeps the subscribers target's streams open through the load and times creates to their events", async () => {
    const results = await runBench({
      settings,
      targets: [{ ...spec("plantstore-subscribers"), subscribers: 5 }],
      scenarios: ["create"],
      workDir,
      log: () => {},
    });
    expect(results.failures).toEqual([]);
    const [streams] = results.streams;
    expect(streams).toMatchObject({ target: "plantstore-subscribers", subscribers: 5, reopened: 0 });
    expect(streams!.samples).toBeGreaterThan(0);
    expect(streams!.p99Ms).toBeGreaterThanOrEqual(streams!.p50Ms);
    // Every acknowledged create reached all 5 streams: at least ~100 bytes per event per stream.
    const creates = results.cells[0]!.rounds[0]!.statuses["200"] ?? 0;
    expect(streams!.bytes).toBeGreaterThan(creates * 5 * 100);
  });
});

describe("runBench", () => {
  it("fails with the server's last log lines when a target does not start", async () => {
    const script = join(workDir, "broken.js");
    writeFileSync(script, 'console.error("plantstore: DATABASE_URL is not valid"); process.exit(1);\n');
    const broken: TargetSpec = { ...spec("bare"), script };
    await expect(
      runBench({ settings, targets: [broken], scenarios: ["create"], workDir, log: () => {} }),
    ).rejects.toThrow(/bare failed to start: exited \(1\) before listening\n.*\nplantstore: DATABASE_URL is not valid/);
  });
});
