import { BREAKING_RULES, classifyChanges, textualDifferences, type Difference } from "./classify.js";

/**
 * The release gate: what a change of the contract needs before it ships. Any change needs a new
 * `info.version` (semantic versioning of the contract), an entry in docs/api-changes.md and its
 * document kept in released/; a breaking change needs a new major version. The contract package's
 * test runs it on the emitted document, and on each released version against the next.
 */

type Json = Record<string, unknown>;

export interface VersionedDocument {
  version: string;
  /** The OpenAPI 3.1 document, read losslessly (int64 bounds as bigints). */
  document: Json;
}

/** What a contributor runs; the failure message quotes these. */
export const STEPS = {
  version: "packages/contract/src/version.ts",
  regenerate: "pnpm openapi",
  changelog: "docs/api-changes.md",
  release: "pnpm --filter @plantstore/contract release",
} as const;

type Semver = [number, number, number];

export function parseVersion(version: string): Semver | undefined {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** Negative when `a` is the older version. Both must be `MAJOR.MINOR.PATCH`. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  if (x === undefined || y === undefined) throw new Error(`not a MAJOR.MINOR.PATCH version: ${x ? b : a}`);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The version a change needs after `released`: major for a breaking one, minor for an addition, patch for wording. */
export function suggestedVersion(released: string, differences: readonly Difference[]): string {
  const [major, minor, patch] = parseVersion(released) ?? [0, 0, 0];
  if (differences.some((difference) => difference.breaking)) return `${major + 1}.0.0`;
  if (differences.some((difference) => difference.rule !== "other-change")) return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** docs/api-changes.md has a `## <version>` heading (`## 1.5.0 — 2026-11-26`). */
export function changelogHas(changelog: string, version: string): boolean {
  const escaped = version.replaceAll(".", "\\.");
  return new RegExp(`^## ${escaped}(?![.\\d])`, "m").test(changelog);
}

/** One line per difference: what kind, where (a JSON pointer), which rule, the detail. */
export function describeDifferences(differences: readonly Difference[]): string[] {
  return differences.map(
    (difference) =>
      `  ${difference.breaking ? "BREAKING" : "ok      "}  ${difference.pointer}  [${difference.rule}]  ${difference.detail}`,
  );
}

/**
 * What keeps `next` from following `previous` as a release: [] when nothing does. `next` must have
 * a greater version (a greater major one when a difference breaks) and a changelog entry.
 */
export function releaseProblems(previous: VersionedDocument, next: VersionedDocument, changelog: string): string[] {
  const problems: string[] = [];
  const differences = classifyChanges(previous.document, next.document);
  if (parseVersion(next.version) === undefined) {
    problems.push(`info.version "${next.version}" is not MAJOR.MINOR.PATCH`);
    return problems;
  }
  if (compareVersions(next.version, previous.version) <= 0) {
    problems.push(`info.version ${next.version} is not greater than the released ${previous.version}`);
  }
  const breaking = differences.filter((difference) => difference.breaking);
  if (breaking.length > 0 && parseVersion(next.version)![0] <= parseVersion(previous.version)![0]) {
    problems.push(
      `${breaking.length} breaking change(s) need a new major version (${suggestedVersion(previous.version, differences)}), not ${next.version}`,
    );
  }
  if (!changelogHas(changelog, next.version)) problems.push(`${STEPS.changelog} has no "## ${next.version}" entry`);
  return problems;
}

/**
 * The gate on the document the contract emits now, against the latest released one: undefined
 * when it passes, else the failure message (each difference with its pointer and rule, and what to do).
 */
export function gateFailure(
  released: readonly VersionedDocument[],
  emitted: VersionedDocument,
  changelog: string,
  sameText: (a: Json, b: Json) => boolean,
): string | undefined {
  const latest = [...released].sort((a, b) => compareVersions(a.version, b.version)).at(-1);
  if (latest === undefined) return "no released document: run the release script once";
  if (emitted.version === latest.version && sameText(latest.document, emitted.document)) return undefined;

  const differences = classifyChanges(latest.document, emitted.document);
  const problems =
    emitted.version === latest.version
      ? [
          `the emitted document differs from released/${latest.version}.json but info.version is still ${latest.version}`,
        ]
      : [
          ...releaseProblems(latest, emitted, changelog),
          `released/${emitted.version}.json does not exist yet (the release script writes it)`,
        ];
  const needed = suggestedVersion(latest.version, differences);
  // The version already chosen, when it is enough; else the least one that is.
  const chosen = parseVersion(emitted.version) !== undefined && emitted.version !== latest.version;
  const target = chosen && compareVersions(emitted.version, needed) >= 0 ? emitted.version : needed;
  const other = textualDifferences(latest.document, emitted.document);
  const kind = differences.some((difference) => difference.breaking)
    ? "a breaking change: a new MAJOR version"
    : differences.some((difference) => difference.rule !== "other-change")
      ? "additive changes only: a new MINOR version"
      : "wording only: a new PATCH version";
  return [
    `The contract changed since released/${latest.version}.json (${kind}):`,
    ...(differences.length > 0 ? describeDifferences(differences) : ["  (no rule names a difference)"]),
    ...(other.length > 0
      ? ["  Where the documents differ (wording included):", ...other.map((pointer) => `    ${pointer}`)]
      : []),
    "Problems:",
    ...problems.map((problem) => `  - ${problem}`),
    "What to do:",
    `  1. set API_VERSION to "${target}" in ${STEPS.version}`,
    `  2. regenerate the documents: ${STEPS.regenerate}`,
    `  3. add "## ${target} — <date>" at the top of ${STEPS.changelog}, saying in a consumer's words what changed`,
    `  4. release it: ${STEPS.release} (writes packages/contract/released/${target}.json)`,
    ...(differences.some((difference) => difference.breaking)
      ? [
          `Breaking (${Object.keys(BREAKING_RULES).length} rules, see docs/api.md "Versioning"): prefer an additive change, or deprecate first.`,
        ]
      : []),
  ].join("\n");
}

/**
 * An OpenAPI document's text, read losslessly: integers beyond 2^53 (the int64 bounds) become
 * bigints, read from their source text (JSON.parse's reviver context, Node 22+).
 */
export function readDocument(text: string): Json {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === "number" &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  ) as Json;
}
