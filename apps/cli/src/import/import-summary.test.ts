import { describe, expect, it } from "vitest";
import { emptySummary, formatSummary, importSucceeded } from "./import-summary.js";

describe("formatSummary", () => {
  it("lists the counts, then each failing line with its reason", () => {
    const summary = {
      ...emptySummary(),
      lines: 5,
      created: 2,
      alreadyPresent: 1,
      conflicts: [{ line: 4, id: "7", reason: "taken" }],
      invalid: [{ line: 2, reason: "name: must not be empty" }],
      elapsedMs: 2_000,
    };
    expect(formatSummary(summary, "plants.csv")).toBe(
      [
        "plants.csv: 5 lines in 2.0 s (3 lines/s)",
        "  created          2",
        "  already present  1",
        "  conflicts        1",
        "  invalid          1",
        "  failed           0",
        "Conflicts:",
        "  line 4 (id 7): taken",
        "Invalid lines:",
        "  line 2: name: must not be empty",
        "",
      ].join("\n"),
    );
    expect(importSucceeded(summary)).toBe(false);
  });

  it("lists at most 50 failures of a kind and points to --json for the rest", () => {
    const invalid = Array.from({ length: 60 }, (_, i) => ({ line: i + 1, reason: "bad" }));
    const text = formatSummary({ ...emptySummary(), lines: 60, invalid }, "x.csv");
    expect(text).toContain("  line 50: bad\n  … and 10 more (--json lists them all)\n");
    expect(text).not.toContain("line 51:");
  });

  it("says why a run stopped and that running it again finishes it", () => {
    const text = formatSummary({ ...emptySummary(), unfinished: 3, stopped: "interrupted" }, "-");
    expect(text).toContain("  unfinished       3\n");
    expect(text).toContain("Stopped early: interrupted\nRun the same command again to finish");
  });

  it("counts a run with only created and already present lines as a success", () => {
    expect(importSucceeded({ ...emptySummary(), created: 1, alreadyPresent: 1 })).toBe(true);
  });
});
