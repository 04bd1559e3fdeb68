import { ErrorCode, LIST_LIMIT_DEFAULT } from "@plantstore/contract";
import { afterAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { exactJson, startTestServer } from "../src/test-support/test-server.js";

/**
 * Model-based test: seeded random sequences of creates (new, replayed, conflicting), gets (with
 * and without If-None-Match), list pages (random limits, tags and `after`), edits and deletes
 * (with and without If-Match: an ETag the test saw, possibly stale, `*`, or one never issued)
 * against the real server, each answer checked against an in-memory model of the store. ETags
 * are checked to be one per content: the same for the same name and tag, different otherwise. A failure names the seed and the last steps,
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
      /** The last ETag the test saw for each id, and the plant it was seen with. */
      const seen = new Map<bigint, { etag: string; plant: Plant }>();
      /** ETag per content, and content per ETag: both must stay one-to-one. */
      const etagOfContent = new Map<string, string>();
      const contentOfEtag = new Map<string, string>();
      const observe = (id: bigint, plant: Plant, etag: string | null) => {
        expect(etag).toMatch(/^"[^"]+"$/);
        const content = JSON.stringify([plant.name, plant.tag ?? null]);
        expect(etagOfContent.get(content) ?? etag).toBe(etag);
        expect(contentOfEtag.get(etag!) ?? content).toBe(content);
        etagOfContent.set(content, etag!);
        contentOfEtag.set(etag!, content);
        seen.set(id, { etag: etag!, plant });
      };
      /** An If-Match for `id`: none, the last ETag seen for it (maybe stale), `*`, or one never issued. */
      const condition = (id: bigint): { header?: string; holds: (current: Plant | undefined) => boolean } => {
        const roll = random.int(10);
        const last = seen.get(id);
        if (roll < 5) return { holds: () => true };
        if (roll < 8 && last !== undefined) {
          return { header: last.etag, holds: (current) => current !== undefined && same(current, last.plant) };
        }
        if (roll < 9) return { header: "*", holds: (current) => current !== undefined };
        return { header: '"never-issued"', holds: () => false };
      };
      const expectError = async (response: Response, status: number, code: number) => {
        expect(response.status).toBe(status);
        expect(((await response.json()) as { error: number }).error).toBe(code);
      };

      async function step(): Promise<void> {
        const roll = random.int(100);
        if (roll < 30) {
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
        } else if (roll < 45) {
          const id = random.pick(pool);
          const last = seen.get(id);
          const ifNoneMatch = last !== undefined && random.chance(0.3) ? last : undefined;
          history.push(`get ${id}${ifNoneMatch === undefined ? "" : ` if-none-match ${ifNoneMatch.etag}`}`);
          const response = await server.call(
            "GET",
            `/plants/${id}`,
            ifNoneMatch === undefined ? {} : { "if-none-match": ifNoneMatch.etag },
          );
          const current = model.get(id);
          if (current === undefined) {
            await expectError(response, 404, ErrorCode.PLANT_NOT_FOUND);
          } else if (ifNoneMatch !== undefined && same(current, ifNoneMatch.plant)) {
            expect(response.status).toBe(304);
            expect(response.headers.get("etag")).toBe(ifNoneMatch.etag);
          } else {
            expect(response.status).toBe(200);
            expect(await exactJson(response)).toEqual({ id, ...current });
            observe(id, current, response.headers.get("etag"));
          }
        } else if (roll < 65) {
          // An edit: of a stored plant (often to the same name and tag) or of any pool id.
          const existing = stored();
          const id = existing.length > 0 && random.chance(0.7) ? random.pick(existing) : random.pick(pool);
          const current = model.get(id);
          const plant = current !== undefined && random.chance(0.2) ? current : newPlant();
          const ifMatch = condition(id);
          history.push(
            `update ${id} ${JSON.stringify(plant)}${ifMatch.header === undefined ? "" : ` if-match ${ifMatch.header}`}`,
          );
          const response = await server.put(
            id,
            plant,
            ifMatch.header === undefined ? {} : { "if-match": ifMatch.header },
          );
          if (current === undefined && ifMatch.header === undefined) {
            await expectError(response, 404, ErrorCode.PLANT_NOT_FOUND);
          } else if (!ifMatch.holds(current)) {
            await expectError(response, 412, ErrorCode.PRECONDITION_FAILED);
          } else {
            expect(response.status).toBe(200);
            expect(await exactJson(response)).toEqual({ id, ...plant });
            observe(id, plant, response.headers.get("etag"));
            model.set(id, plant);
          }
        } else if (roll < 85) {
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
          const ifMatch = condition(id);
          history.push(`delete ${id}${ifMatch.header === undefined ? "" : ` if-match ${ifMatch.header}`}`);
          const response = await server.call(
            "DELETE",
            `/plants/${id}`,
            ifMatch.header === undefined ? {} : { "if-match": ifMatch.header },
          );
          const current = model.get(id);
          if (current === undefined && ifMatch.header === undefined) {
            await expectError(response, 404, ErrorCode.PLANT_NOT_FOUND);
          } else if (!ifMatch.holds(current)) {
            await expectError(response, 412, ErrorCode.PRECONDITION_FAILED);
          } else {
            expect(response.status).toBe(204);
            expect(await response.text()).toBe("");
            model.delete(id);
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
