import { describe, expect, it } from "vitest";
import { packageOf, shortenUrl, summarizeProfile, type CpuProfile } from "./cpu-profile.js";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });
const pnpm = "file:///repo/node_modules/.pnpm/pino@9.14.0/node_modules/pino/lib/proto.js";

// root → handler (ours) → write (pino) ; root → (garbage collector)
const profile: CpuProfile = {
  startTime: 0,
  endTime: 10_000,
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 4] },
    { id: 2, callFrame: frame("handler", "file:///repo/apps/server/dist/app.js", 9), children: [3] },
    { id: 3, callFrame: frame("write", pnpm, 41) },
    { id: 4, callFrame: frame("(garbage collector)") },
  ],
  // Each sample lasts until the next: the delta at i+1 is sample i's time (µs).
  samples: [2, 3, 3, 4, 2],
  timeDeltas: [0, 1000, 2000, 3000, 4000, 0],
};

describe("summarizeProfile", () => {
  const summary = summarizeProfile(profile, { repoRoot: "/repo" });

  it("adds up self time per function", () => {
    expect(summary.totalMs).toBe(10);
    expect(summary.selfByFunction.map((entry) => [entry.name, entry.ms])).toEqual([
      ["write pino/lib/proto.js:42", 5],
      ["(garbage collector)", 4],
      ["handler apps/server/dist/app.js:10", 1],
    ]);
  });

  it("groups self time by package", () => {
    expect(summary.selfByPackage.map((entry) => [entry.name, entry.ms])).toEqual([
      ["pino", 5],
      ["(garbage collector)", 4],
      ["ours: apps/server/dist/app.js", 1],
    ]);
  });

  it("counts a function's callees in its total time", () => {
    expect(summary.totalByFunction.find((entry) => entry.name.startsWith("handler"))?.ms).toBe(6);
  });
});

describe("packageOf", () => {
  it("names scoped packages, node core and V8 builtins", () => {
    expect(packageOf(frame("x", "file:///r/node_modules/.pnpm/@ts-rest+core@3/node_modules/@ts-rest/core/a.js"))).toBe(
      "@ts-rest/core",
    );
    expect(packageOf(frame("x", "node:internal/http"))).toBe("node core");
    expect(packageOf(frame("JSONParse"))).toBe("(V8 builtins and native)");
    expect(shortenUrl("file:///repo/bench/x.js", "/repo")).toBe("bench/x.js");
  });
});
