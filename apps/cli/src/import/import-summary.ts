/** A line that did not end with its plant stored. */
export interface LineFailure {
  line: number;
  /** The id as written, when the line has a readable one. */
  id?: string;
  reason: string;
}

/** The running and final account of an import. */
export interface ImportSummary {
  /** Data lines read (blank lines and the CSV header are not counted). */
  lines: number;
  /** Lines whose create this run stored. */
  created: number;
  /** Lines whose identical plant was already stored (by an earlier run, or an earlier line of the file). */
  alreadyPresent: number;
  /** Stored, but a retry made it impossible to tell whether this run or an earlier one created it. */
  createdOrAlreadyPresent: number;
  /** With --update: lines whose id was stored with another name or tag, edited to the line's. */
  updated: number;
  /** The id was stored (before this run, or from an earlier line of the file) with a different name or tag. */
  conflicts: LineFailure[];
  /** The line is not a valid plant (refused before sending, or by the server). */
  invalid: LineFailure[];
  /** The create failed for another reason (a server error, an answer that breaks the contract). */
  failed: LineFailure[];
  /** Lines read but not finished because the run stopped. */
  unfinished: number;
  /** Why the run stopped before the end of the source, if it did. */
  stopped?: string;
  elapsedMs: number;
}

export function emptySummary(): ImportSummary {
  return {
    lines: 0,
    created: 0,
    alreadyPresent: 0,
    createdOrAlreadyPresent: 0,
    updated: 0,
    conflicts: [],
    invalid: [],
    failed: [],
    unfinished: 0,
    elapsedMs: 0,
  };
}

export function finishedLines(summary: ImportSummary): number {
  return (
    summary.created + summary.alreadyPresent + summary.createdOrAlreadyPresent + summary.updated + failureCount(summary)
  );
}

export function failureCount(summary: ImportSummary): number {
  return summary.conflicts.length + summary.invalid.length + summary.failed.length;
}

export function importSucceeded(summary: ImportSummary): boolean {
  return failureCount(summary) === 0 && summary.stopped === undefined && summary.unfinished === 0;
}

const LISTED_FAILURES = 50;

/** The human summary: counts, then each failing line with its reason (the first 50 of each kind). */
export function formatSummary(summary: ImportSummary, source: string): string {
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(finishedLines(summary) / seconds) : 0;
  const rows: Array<[string, number]> = [
    ["created", summary.created],
    ["already present", summary.alreadyPresent],
    ...(summary.createdOrAlreadyPresent > 0
      ? [["created or already present", summary.createdOrAlreadyPresent] as [string, number]]
      : []),
    ...(summary.updated > 0 ? [["updated", summary.updated] as [string, number]] : []),
    ["conflicts", summary.conflicts.length],
    ["invalid", summary.invalid.length],
    ["failed", summary.failed.length],
    ...(summary.unfinished > 0 ? [["unfinished", summary.unfinished] as [string, number]] : []),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const out = [
    `${source}: ${summary.lines} lines in ${seconds.toFixed(1)} s (${rate} lines/s)`,
    ...rows.map(([label, count]) => `  ${label.padEnd(width)}  ${count}`),
  ];
  for (const [title, failures] of [
    ["Conflicts", summary.conflicts],
    ["Invalid lines", summary.invalid],
    ["Failed lines", summary.failed],
  ] as const) {
    if (failures.length === 0) continue;
    out.push(`${title}:`);
    for (const failure of failures.slice(0, LISTED_FAILURES)) {
      out.push(`  line ${failure.line}${failure.id === undefined ? "" : ` (id ${failure.id})`}: ${failure.reason}`);
    }
    if (failures.length > LISTED_FAILURES) {
      out.push(`  … and ${failures.length - LISTED_FAILURES} more (--json lists them all)`);
    }
  }
  if (summary.stopped !== undefined) {
    out.push(`Stopped early: ${summary.stopped}`);
    out.push(
      "Run the same command again to finish: creates are idempotent, stored plants are reported as already present.",
    );
  }
  return `${out.join("\n")}\n`;
}
