import type { BenchResults, CellResult } from "./results.js";

const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const optional = (value: number | undefined, digits = 0, unit = "") =>
  value === undefined ? "?" : `${number(value, digits)}${unit}`;

function statusSummary(cell: CellResult): string {
  const totals: Record<string, number> = {};
  for (const round of cell.rounds) {
    for (const [status, count] of Object.entries(round.statuses)) totals[status] = (totals[status] ?? 0) + count;
  }
  const all = Object.values(totals).reduce((sum, count) => sum + count, 0);
  return Object.entries(totals)
    .map(([status, count]) => `${status} ${Math.round((count / all) * 100)} %`)
    .join(", ");
}

function range(cell: CellResult): string {
  const values = cell.rounds.map((round) => round.reqPerSec);
  return `${number(Math.min(...values))}–${number(Math.max(...values))}`;
}

/** The change streams' latency (issue 39), when a target with subscribers ran. */
function streamLines(results: BenchResults): string[] {
  if (results.streams.length === 0) return [];
  return [
    "",
    "## Change streams",
    "",
    "From a create's 200 to its event at a subscriber, while wrk creates: the bench creates one plant at a time",
    "beside the load (a 20 ms pause between them) and watches for it on one of the open streams.",
    "",
    "| target | streams open | creates timed | p50 ms | p99 ms | streams ended by the server | MiB received |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...results.streams.map(
      (stream) =>
        `| ${stream.target} | ${stream.subscribers} | ${number(stream.samples)} | ${number(stream.p50Ms, 2)} | ${number(stream.p99Ms, 2)} | ${stream.reopened} | ${number(stream.bytes / 2 ** 20, 0)} |`,
    ),
  ];
}

/** The results as Markdown: bench/results/latest.md, the latest run's table and targets. */
export function renderMarkdown(results: BenchResults): string {
  const { machine, settings } = results;
  const rss = new Map(results.targets.map((target) => [target.name, target.peakRssKiB]));
  const lines = [
    `# Plant Store benchmark${settings.smoke ? " (smoke run: too short to quote)" : ""}`,
    "",
    `${results.date} · ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB · Linux ${machine.kernel} · Node ${machine.node} · ${machine.wrk} · commit ${machine.gitCommit}`,
    "",
    `Server ${settings.pinned ? "pinned to CPU 0, wrk to CPU 1" : "and wrk unpinned"}; ${settings.connections} keep-alive connections, ` +
      `${settings.wrkThreads} wrk thread(s); ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s per target and scenario, ` +
      `each right after ${settings.warmupSeconds} s of warm-up of the same cell, the targets in reverse order every other round; medians over the rounds, and each ratio the median of its per-round ratios. Databases on ${machine.databaseFilesystem}; ` +
      `load average ${machine.loadAverageAtStart} at start, ${machine.loadAverageAtEnd ?? "?"} at end (2 cores: above ~1 means other work shared them).`,
    "",
    "| target | scenario | req/s (median) | req/s (rounds) | p50 ms | p99 ms | CPU µs/req | server CPU | core to others ms | peak RSS MiB | statuses |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...results.cells.map((cell) => {
      const peak = rss.get(cell.target);
      return `| ${cell.target} | ${cell.scenario} | ${number(cell.medianReqPerSec)} | ${range(cell)} | ${number(cell.medianP50Ms, 2)} | ${number(cell.medianP99Ms, 2)} | ${optional(cell.medianCpuUsPerRequest)} | ${optional(cell.medianCpuShare === undefined ? undefined : cell.medianCpuShare * 100, 0, " %")} | ${optional(cell.medianCoreOthersMs)} | ${peak === undefined ? "?" : number(peak / 1024, 1)} | ${statusSummary(cell)} |`;
    }),
    "",
    "## Plant Store ÷ baseline (req/s)",
    "",
    "Throughput ratio above 1: Plant Store is faster. CPU cost ratio below 1: Plant Store spends less server CPU per",
    "request (steadier than req/s when other work shares the machine; blind to time spent waiting on fsync).",
    "",
    "| scenario | baseline | req/s ratio | CPU cost ratio |",
    "|---|---|---:|---:|",
    ...results.ratios.map(
      (ratio) =>
        `| ${ratio.scenario} | ${ratio.baseline} | ${ratio.ratio.toFixed(2)}× | ${ratio.cpuCostRatio === undefined ? "?" : `${ratio.cpuCostRatio.toFixed(2)}×`} |`,
    ),
    "",
    "## Targets",
    "",
    "| target | required | measured | |",
    "|---|---|---:|---|",
    ...results.goals.map(
      (goal) => `| ${goal.goal} | ${goal.required} | ${goal.actual} | ${goal.met ? "met" : "**missed**"} |`,
    ),
    ...streamLines(results),
    "",
    "## Targets loaded",
    "",
    ...results.targets.map((target) => `- **${target.name}**: ${target.description}`),
  ];
  if (results.failures.length > 0) {
    lines.push("", "## Failures", "", ...results.failures.map((failure) => `- ${failure}`));
  }
  return `${lines.join("\n")}\n`;
}
