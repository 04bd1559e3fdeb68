import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@plantstore/vitest-config/optional";
import { expect, it } from "vitest";
import { wrk } from "./test-support/wrk.js";

const soak = fileURLToPath(new URL("../dist/soak.js", import.meta.url));

describeWith(wrk, "pnpm soak, for a few seconds", () => {
  it("drives the mixed load against the real server and reports every kind answered as expected", () => {
    const output = mkdtempSync(join(tmpdir(), "plantstore-soak-test-"));
    try {
      const run = spawnSync(process.execPath, [soak, "--minutes", "0.05", "--output", output], { encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/mix \{.*"create":\d+.*\}/);
      for (const kind of ["create", "replay", "conflict", "get", "list", "delete", "unauth"]) {
        expect(run.stdout).toContain(`"${kind}":`);
      }
      const report = JSON.parse(readFileSync(join(output, "soak.json"), "utf8")) as {
        verdicts: Array<{ met: boolean }>;
      };
      expect(report.verdicts).toEqual([expect.objectContaining({ met: true })]);
    } finally {
      rmSync(output, { recursive: true, force: true });
    }
  }, 60_000);
});
