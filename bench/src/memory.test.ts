import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describeWith } from "@plantstore/vitest-config/optional";
import { expect, it } from "vitest";
import { wrk } from "./test-support/wrk.js";

const memory = fileURLToPath(new URL("../dist/memory.js", import.meta.url));

describeWith(wrk, "bench:memory, for a second per scenario", () => {
  it("reports the real server's RSS idle, at its peak under load and after it, in MiB", () => {
    const run = spawnSync(
      process.execPath,
      [memory, "--targets", "plantstore", "--scenarios", "create,get", "--duration", "1", "--idle", "1"],
      { encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const row = new RegExp(
      `^\\| ${process.version} \\| plantstore \\| ([\\d.]+) \\| ([\\d.]+) \\| ([\\d.]+) \\|$`,
      "m",
    ).exec(run.stdout);
    expect(row, run.stdout).not.toBeNull();
    const [idle, peak] = [Number(row![1]), Number(row![2])];
    // A Node server holds tens of MiB idle, and its peak is at least what it held idle.
    expect(idle).toBeGreaterThan(10);
    expect(peak).toBeGreaterThanOrEqual(idle);
  }, 180_000);
});
