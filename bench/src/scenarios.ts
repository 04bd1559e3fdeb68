/** The load each wrk run sends; the names are the Lua script's modes. */
export type ScenarioName =
  | "create"
  | "replay"
  | "conflict"
  | "unauth"
  | "forbidden"
  | "notfound"
  | "method"
  | "get"
  | "list"
  | "list-deep"
  | "update"
  | "delete";

/**
 * The plants a large-store target holds before it starts: ids LARGE_STORE_FIRST_ID and up, far
 * above every id a wrk run creates and below 2^53 (Lua's doubles hold them exactly). `list-deep`
 * pages after the id nine tenths of the way in.
 */
export const LARGE_STORE_FIRST_ID = 2 ** 50;
export const LARGE_STORE_PLANTS = 10_000_000;
export const listDeepAfter = (plants: number) => LARGE_STORE_FIRST_ID + Math.floor(plants * 0.9);

export interface Scenario {
  name: ScenarioName;
  description: string;
}

export const scenarios: readonly Scenario[] = [
  { name: "create", description: "unique ids: every request a new plant" },
  { name: "replay", description: "100 % replays of pre-created plants (same body)" },
  { name: "conflict", description: "50 % conflicts (pre-created id, other name), 50 % creates" },
  { name: "unauth", description: "401s: a valid create with an unknown bearer token" },
  { name: "forbidden", description: "403s: a valid create with a token that may only read (plants:read)" },
  { name: "notfound", description: "404s: GET of a path no operation has (/plant-pots/{n})" },
  { name: "method", description: "405s: DELETE /plants, a method the collection does not have" },
  { name: "get", description: "GET /plants/{id} of pre-created plants" },
  { name: "list", description: "GET /plants?limit=100: a first page of 100 plants" },
  {
    name: "list-deep",
    description: "GET /plants?limit=100&after=<an id nine tenths into a large store>: a page deep in 10 million plants",
  },
  {
    name: "update",
    description: "PUT /plants/{id} of pre-created plants, a new name every request: every request a durable edit",
  },
  {
    name: "delete",
    description: "a create, then the delete of that plant (one connection per wrk thread): 50 % 200, 50 % 204",
  },
];

/** The refusals: answered before any store work, each to cost at most 2× fastify-durable's 401. */
export const REFUSAL_SCENARIOS: readonly ScenarioName[] = ["unauth", "forbidden", "notfound", "method"];

/**
 * Plants pre-created for a pool of `poolSize`: ids -1 … -poolSize for replays, conflicts and reads,
 * and as many more that only the update scenario edits (plants.lua), so that no edit changes a body
 * a later replay sends (it would then be a 409: found when rounds 2-5 of a full run's replays were).
 */
export const poolPlants = (poolSize: number) => 2 * poolSize;

/** The scenarios that need the pre-created pool. */
export const POOL_SCENARIOS: readonly ScenarioName[] = ["replay", "conflict", "get", "list", "update"];

export const REFUSAL_STATUS = { unauth: "401", forbidden: "403", notfound: "404", method: "405" } as const;

/** How far the 409 share of a conflict run may stray from one half (in-flight requests at the end). */
const CONFLICT_SHARE_TOLERANCE = 0.05;

/**
 * Why a run's answers are wrong for its scenario, or undefined when they are right.
 * `statuses` maps HTTP status → count, as wrk's script reports it.
 */
export function checkStatuses(scenario: ScenarioName, statuses: Readonly<Record<string, number>>): string | undefined {
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  if (total === 0) return "no responses at all";
  const expected: readonly string[] =
    scenario in REFUSAL_STATUS
      ? [REFUSAL_STATUS[scenario as keyof typeof REFUSAL_STATUS]]
      : scenario === "conflict"
        ? ["200", "409"]
        : scenario === "delete"
          ? ["200", "204"]
          : ["200"];
  const unexpected = Object.entries(statuses).filter(([status, count]) => count > 0 && !expected.includes(status));
  if (unexpected.length > 0) {
    const list = unexpected.map(([status, count]) => `${count}× ${status}`).join(", ");
    return `expected only ${expected.join("/")}, got ${list}`;
  }
  if (scenario === "conflict" || scenario === "delete") {
    const second = scenario === "conflict" ? "409" : "204";
    const share = (statuses[second] ?? 0) / total;
    if (Math.abs(share - 0.5) > CONFLICT_SHARE_TOLERANCE) {
      return `expected about 50 % ${second}s, got ${(share * 100).toFixed(1)} %`;
    }
  }
  return undefined;
}
