/** Reads a V8 .cpuprofile (node --cpu-prof) and aggregates where the time went. */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface TimeEntry {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time per function (where the CPU actually was). */
  selfByFunction: TimeEntry[];
  /** Self time per package, node core module, or our own file. */
  selfByPackage: TimeEntry[];
  /** Time with the function anywhere on the stack (counted once per sample even when recursive). */
  totalByFunction: TimeEntry[];
}

/** `file:///…/node_modules/.pnpm/x@1/node_modules/@scope/x/lib/a.js` → `@scope/x/lib/a.js`; our files relative to the repo. */
export function shortenUrl(url: string, repoRoot = ""): string {
  const path = url.replace(/^file:\/\//, "");
  const inModules = path.lastIndexOf("/node_modules/");
  if (inModules >= 0) return path.slice(inModules + "/node_modules/".length);
  if (repoRoot && path.startsWith(repoRoot)) return path.slice(repoRoot.length).replace(/^\//, "");
  return path;
}

/** Which package (or node core, V8, our own code) a frame belongs to. */
export function packageOf(frame: CallFrame, repoRoot = ""): string {
  if (frame.url === "") return frame.functionName.startsWith("(") ? frame.functionName : "(V8 builtins and native)";
  if (frame.url.startsWith("node:")) return "node core";
  const short = shortenUrl(frame.url, repoRoot);
  if (frame.url.includes("/node_modules/")) {
    const [first, second] = short.split("/");
    return first?.startsWith("@") ? `${first}/${second}` : (first ?? short);
  }
  return `ours: ${short}`;
}

function functionKey(frame: CallFrame, repoRoot: string): string {
  const name = frame.functionName || "(anonymous)";
  if (frame.url === "") return name;
  return `${name} ${shortenUrl(frame.url, repoRoot)}:${frame.lineNumber + 1}`;
}

function top(totals: Map<string, number>, totalMs: number, limit: number): TimeEntry[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, ms]) => ({ name, ms, share: totalMs > 0 ? ms / totalMs : 0 }));
}

export function summarizeProfile(
  profile: CpuProfile,
  options: { repoRoot?: string; limit?: number } = {},
): ProfileSummary {
  const repoRoot = options.repoRoot ?? "";
  const limit = options.limit ?? 30;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalMs = 0;
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);

  for (let i = 0; i < samples.length; i++) {
    // A sample lasts until the next one; deltas are in microseconds.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    const node = byId.get(samples[i] as number);
    if (node === undefined || ms <= 0) continue;
    totalMs += ms;
    add(self, functionKey(node.callFrame, repoRoot), ms);
    add(byPackage, packageOf(node.callFrame, repoRoot), ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (frame === undefined || frame.functionName === "(root)") continue;
      const key = functionKey(frame, repoRoot);
      if (!seen.has(key)) {
        seen.add(key);
        add(inclusive, key, ms);
      }
    }
  }
  return {
    totalMs,
    selfByFunction: top(self, totalMs, limit),
    selfByPackage: top(byPackage, totalMs, limit),
    totalByFunction: top(inclusive, totalMs, limit),
  };
}

function table(title: string, entries: readonly TimeEntry[]): string[] {
  return [
    `## ${title}`,
    "",
    "| ms | share | where |",
    "|---:|---:|---|",
    ...entries.map(
      (entry) =>
        `| ${entry.ms.toFixed(0)} | ${(entry.share * 100).toFixed(1)} % | \`${entry.name.replaceAll("|", "\\|")}\` |`,
    ),
    "",
  ];
}

export function renderProfileSummary(summary: ProfileSummary, heading: string): string {
  return [
    `# ${heading}`,
    "",
    `${(summary.totalMs / 1000).toFixed(1)} s of samples.`,
    "",
    ...table("Self time by package", summary.selfByPackage),
    ...table("Self time by function", summary.selfByFunction),
    ...table("Total time by function (on the stack)", summary.totalByFunction),
  ].join("\n");
}
