import { ErrorCode, LIST_LIMIT_DEFAULT } from "@plantstore/contract";
import { afterAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { exactJson, startTestServer } from "../src/test-support/test-server.js";

/**
 * Model-based test: seeded random sequences of creates (new, replayed, conflicting), gets, list
 * pages (random limits, tags and `after`) and deletes against the real server, each answer
 * checked against an in-memory model of the store. A failure names the seed and the last steps,
 * so it can be replayed with PLANTSTORE_MODEL_SEED=<seed>.
 */
const SEQUENCES = 10;
const STEPS_PER_SEQUENCE = 200; // 2,000 steps per backend
const FIRST_SEED = Number(process.env.PLANTSTORE_MODEL_SEED ?? 20261122);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_53 = 2n ** 53n;

interface Plant {
  name: string;
  tag?: string;
}

/** mulberry32: a small, fast, seedable generator (the same seed gives the same sequence). */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const int64 = () => (BigInt(int(2 ** 32)) << 32n) + BigInt(int(2 ** 32)) + INT64_MIN;
  return { int, pick, int64, chance: (p: number) => next() < p };
}

const NAMES = ["Fern", "Moss", "Ivy", "Monstera deliciosa", "🌿"];
const TAGS = [undefined, "indoor", "outdoor", 'a b,"c"'];

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

describe.each(testBackends())("the store against its model on $name", (backend) => {
  afterAll(() => backend.cleanup());

  it.each(Array.from({ length: SEQUENCES }, (_, index) => FIRST_SEED + index))(
    `seed %i: ${STEPS_PER_SEQUENCE} random steps agree with the model`,
    async (seed) => {
      const random = generator(seed);
      // A small pool of ids, so that creates collide, replays and conflicts happen and deletes hit.
      const pool = [INT64_MIN, INT64_MAX, TWO_53 + 1n, -(TWO_53 + 1n), 0n, -1n];
      while (pool.length < 24) pool.push(random.int64());
      const model = new Map<bigint, Plant>();
      const history: string[] = [];
      const server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });

      const newPlant = (): Plant => {
        const tag = random.pick(TAGS);
        return tag === undefined ? { name: random.pick(NAMES) } : { name: random.pick(NAMES), tag };
      };
      const same = (a: Plant, b: Plant) => a.name === b.name && a.tag === b.tag;
      const stored = () => [...model.keys()];

      async function step(): Promise<void> {
        const roll = random.int(100);
        if (roll < 35) {
          // A create: a new plant, a replay of a stored one, or a conflict with it.
          const existing = stored();
          const replay = existing.length > 0 && random.chance(0.3);
          const id = replay ? random.pick(existing) : random.pick(pool);
          const plant = replay && random.chance(0.5) ? model.get(id)! : newPlant();
          history.push(`create ${id} ${JSON.stringify(plant)}`);
          const response = await server.post({ id, ...plant });
          const current = model.get(id);
          if (current === undefined) {
            expect(response.status).toBe(200);
            expect(response.headers.get("plant-store-outcome")).toBe("created");
            expect(await response.json()).toEqual(plant);
            model.set(id, plant);
          } else if (same(current, plant)) {
            expect(response.status).toBe(200);
            expect(response.headers.get("plant-store-outcome")).toBe("replayed");
            expect(await response.json()).toEqual(current);
          } else {
            expect(response.status).toBe(409);
            expect(((await response.json()) as { error: number }).error).toBe(ErrorCode.ID_CONFLICT);
          }
        } else if (roll < 55) {
          const id = random.pick(pool);
          history.push(`get ${id}`);
          const response = await server.call("GET", `/plants/${id}`);
          const current = model.get(id);
          if (current === undefined) {
            expect(response.status).toBe(404);
            expect(((await response.json()) as { error: number }).error).toBe(ErrorCode.PLANT_NOT_FOUND);
          } else {
            expect(response.status).toBe(200);
            expect(await exactJson(response)).toEqual({ id, ...current });
          }
        } else if (roll < 80) {
          const limit = random.chance(0.2) ? undefined : random.chance(0.1) ? 1000 : 1 + random.int(8);
          const tag = random.chance(0.4) ? random.pick(TAGS.filter((t) => t !== undefined)) : undefined;
          const after = random.chance(0.5) ? (random.chance(0.5) ? random.pick(pool) : random.int64()) : undefined;
          const query = new URLSearchParams();
          if (limit !== undefined) query.set("limit", String(limit));
          if (after !== undefined) query.set("after", String(after));
          if (tag !== undefined) query.set("tag", tag);
          history.push(`list ?${query}`);
          const response = await server.call("GET", `/plants?${query}`);
          expect(response.status).toBe(200);
          const size = limit ?? LIST_LIMIT_DEFAULT;
          const matching = [...model.entries()]
            .filter(([id, plant]) => (after === undefined || id > after) && (tag === undefined || plant.tag === tag))
            .sort(([a], [b]) => compare(a, b));
          const page = matching.slice(0, size).map(([id, plant]) => ({ id, ...plant }));
          expect(await exactJson(response)).toEqual(page);
          const link = response.headers.get("link");
          if (matching.length > size) {
            const tagPart = tag === undefined ? "" : `&tag=${encodeURIComponent(tag)}`;
            expect(link).toBe(`</plants?limit=${size}&after=${page[page.length - 1]!.id}${tagPart}>; rel="next"`);
          } else {
            expect(link).toBeNull();
          }
        } else {
          const existing = stored();
          const id = existing.length > 0 && random.chance(0.6) ? random.pick(existing) : random.pick(pool);
          history.push(`delete ${id}`);
          const response = await server.call("DELETE", `/plants/${id}`);
          if (model.delete(id)) {
            expect(response.status).toBe(204);
            expect(await response.text()).toBe("");
          } else {
            expect(response.status).toBe(404);
            expect(((await response.json()) as { error: number }).error).toBe(ErrorCode.PLANT_NOT_FOUND);
          }
        }
      }

      try {
        for (let index = 0; index < STEPS_PER_SEQUENCE; index++) {
          try {
            await step();
          } catch (error) {
            const last = history.slice(-15).join("\n  ");
            throw new Error(
              `seed ${seed}, step ${index + 1} disagrees with the model (replay: PLANTSTORE_MODEL_SEED=${seed});` +
                ` the last steps:\n  ${last}\n${(error as Error).message}`,
              { cause: error },
            );
          }
        }
        // At the end the whole store equals the model.
        const all = (await exactJson(await server.call("GET", "/plants?limit=1000"))) as Array<{ id: bigint }>;
        expect(all).toEqual([...model.entries()].sort(([a], [b]) => compare(a, b)).map(([id, p]) => ({ id, ...p })));
      } finally {
        await server.close();
      }
    },
  );
});
