export { runBench, type BenchPlan } from "./bench.js";
export { renderProfileSummary, summarizeProfile, type CpuProfile, type ProfileSummary } from "./cpu-profile.js";
export { renderMarkdown } from "./markdown.js";
export type { BenchResults, BenchSettings, CellResult, Goal, Ratio, RoundResult } from "./results.js";
export { checkStatuses, scenarios, type Scenario, type ScenarioName } from "./scenarios.js";
export { median } from "./stats.js";
export { computeRatios, evaluateGoals, summarizeCell } from "./summarize.js";
export { targetSpecs, type TargetName, type TargetSpec } from "./targets.js";
export { parseWrkOutput, requestsPerSecond, type WrkResult } from "./wrk.js";
