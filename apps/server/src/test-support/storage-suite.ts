import type { NewPlant } from "@plantstore/contract";
import { afterEach, describe, expect, it } from "vitest";
import {
  StorageUnavailableError,
  type Claim,
  type CreateDecision,
  type DeleteDecision,
  type Storage,
} from "../store/storage.js";
import { waitFor } from "./wait-for.js";
import { TOKEN_PAGE_ROWS } from "../store/token-row.js";

/**
 * One empty store for one test. `open()` may be called several times: every call opens the same
 * data (a reopen after close, or a second "instance" next to the first).
 */
export interface TestStore {
  open(): Promise<Storage>;
  destroy(): Promise<void>;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function hash(seed: number): Buffer {
  return Buffer.alloc(32, seed);
}

function kinds(outcomes: Array<CreateDecision | DeleteDecision>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome.kind] = (counts[outcome.kind] ?? 0) + 1;
  return counts;
}

/** The storage contract, run against any backend: the same tests must pass on SQLite and PostgreSQL. */
export function describeStorage(name: string, newStore: () => Promise<TestStore>): void {
  describe(`storage: ${name}`, () => {
    let store: TestStore | undefined;
    const opened: Storage[] = [];

    async function open(): Promise<Storage> {
      store ??= await newStore();
      const storage = await store.open();
      opened.push(storage);
      return storage;
    }

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((storage) => storage.close()));
      await store?.destroy();
      store = undefined;
    });

    describe("create, replay, conflict", () => {
      it("creates a plant and reads it back", async () => {
        const storage = await open();
        const outcome = await storage.plants.create({ id: 7n, name: "Fern", tag: "indoor" });
        expect(outcome).toEqual({ kind: "created", plant: { id: 7n, name: "Fern", tag: "indoor" } });
        expect(await storage.plants.find(7n)).toEqual({ id: 7n, name: "Fern", tag: "indoor" });
        expect(await storage.plants.find(8n)).toBeUndefined();
        expect(await storage.plants.count()).toBe(1);
      });

      it("replays an identical create, with and without a tag", async () => {
        const storage = await open();
        await storage.plants.create({ id: 1n, name: "Fern" });
        await storage.plants.create({ id: 2n, name: "Ivy", tag: "hanging" });
        expect(await storage.plants.create({ id: 1n, name: "Fern" })).toEqual({
          kind: "replayed",
          plant: { id: 1n, name: "Fern" },
        });
        expect(await storage.plants.create({ id: 2n, name: "Ivy", tag: "hanging" })).toEqual({
          kind: "replayed",
          plant: { id: 2n, name: "Ivy", tag: "hanging" },
        });
        expect(await storage.plants.count()).toBe(2);
      });

      it.each<[string, NewPlant, NewPlant]>([
        ["another name", { id: 1n, name: "Fern" }, { id: 1n, name: "Moss" }],
        ["a tag where there was none", { id: 1n, name: "Fern" }, { id: 1n, name: "Fern", tag: "indoor" }],
        ["no tag where there was one", { id: 1n, name: "Fern", tag: "indoor" }, { id: 1n, name: "Fern" }],
        ["another tag", { id: 1n, name: "Fern", tag: "indoor" }, { id: 1n, name: "Fern", tag: "outdoor" }],
      ])("answers a conflict for %s and keeps the original", async (_case, original, second) => {
        const storage = await open();
        await storage.plants.create(original);
        expect(await storage.plants.create(second)).toEqual({ kind: "conflict", existing: original });
        expect(await storage.plants.find(1n)).toEqual(original);
        // The original still replays after the conflict.
        expect((await storage.plants.create(original)).kind).toBe("replayed");
      });

      it("keeps names exact: astral characters and the longest name", async () => {
        const storage = await open();
        const plants: NewPlant[] = [
          { id: 1n, name: "🌿".repeat(256), tag: "🌵".repeat(64) },
          { id: 2n, name: "Ünïcödé ñame — 植物", tag: "ελληνικά" },
          { id: 3n, name: "'; DROP TABLE plants; --" },
        ];
        for (const plant of plants) expect((await storage.plants.create(plant)).kind).toBe("created");
        for (const plant of plants) expect(await storage.plants.find(plant.id)).toEqual(plant);
      });
    });

    describe("exact int64 ids", () => {
      it("round-trips -2^63, 2^63-1, 2^53, 2^53+1, 0 and -1 exactly, as distinct plants", async () => {
        const storage = await open();
        const ids = [INT64_MIN, INT64_MAX, 2n ** 53n, 2n ** 53n + 1n, 0n, -1n];
        for (const id of ids) {
          expect(await storage.plants.create({ id, name: `plant ${id}` })).toEqual({
            kind: "created",
            plant: { id, name: `plant ${id}` },
          });
        }
        for (const id of ids) {
          const found = await storage.plants.find(id);
          expect(typeof found?.id).toBe("bigint");
          expect(found).toEqual({ id, name: `plant ${id}` });
        }
        expect(await storage.plants.count()).toBe(ids.length);
        // 2^53+1 is not 2^53 rounded: replaying it with 2^53's name is a conflict.
        expect((await storage.plants.create({ id: 2n ** 53n + 1n, name: `plant ${2n ** 53n}` })).kind).toBe("conflict");
      });
    });

    describe("concurrency", () => {
      it("50 concurrent creates of one id with different names: exactly one created, 49 conflicts", async () => {
        const storage = await open();
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, (_, i) => storage.plants.create({ id: 42n, name: `name ${i}` })),
        );
        expect(kinds(outcomes)).toEqual({ created: 1, conflict: 49 });
        const winner = outcomes.find((outcome) => outcome.kind === "created");
        for (const outcome of outcomes) {
          if (outcome.kind === "conflict") expect(outcome.existing).toEqual(winner?.plant);
        }
        expect(await storage.plants.find(42n)).toEqual(winner?.plant);
      });

      it("50 concurrent identical creates: one created, the rest replayed", async () => {
        const storage = await open();
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, () => storage.plants.create({ id: 43n, name: "Fern", tag: "x" })),
        );
        expect(kinds(outcomes)).toEqual({ created: 1, replayed: 49 });
      });

      it("two instances on one store: one id raced from both is created exactly once", async () => {
        const [first, second] = [await open(), await open()];
        const outcomes = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 === 0 ? first : second).plants.create({ id: 99n, name: `name ${i % 4}` }),
          ),
        );
        const counts = kinds(outcomes);
        expect(counts.created).toBe(1);
        const stored = await second.plants.find(99n);
        for (const outcome of outcomes) {
          if (outcome.kind === "replayed") expect(outcome.plant).toEqual(stored);
          if (outcome.kind === "conflict") expect(outcome.existing).toEqual(stored);
        }
        // Every attempt with the winning name is a replay, every other a conflict.
        expect(counts.replayed).toBe(9);
        expect(counts.conflict).toBe(30);
      });

      it("200 concurrent creates of distinct ids are all created", async () => {
        const storage = await open();
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, (_, i) => storage.plants.create({ id: BigInt(i) * 1_000_003n, name: `p${i}` })),
        );
        expect(kinds(outcomes)).toEqual({ created: 200 });
        expect(await storage.plants.count()).toBe(200);
      });
    });

    describe("delete", () => {
      it("deletes a plant, answers what it was, and frees its id", async () => {
        const storage = await open();
        await storage.plants.create({ id: 5n, name: "Fern", tag: "indoor" });
        expect(await storage.plants.delete(5n)).toEqual({
          kind: "deleted",
          plant: { id: 5n, name: "Fern", tag: "indoor" },
        });
        expect(await storage.plants.find(5n)).toBeUndefined();
        expect(await storage.plants.delete(5n)).toEqual({ kind: "not-found" });
        // The id is free: any body creates a new plant.
        expect(await storage.plants.create({ id: 5n, name: "Moss" })).toEqual({
          kind: "created",
          plant: { id: 5n, name: "Moss" },
        });
      });

      it("answers not-found for an id that never existed, at the ends of int64 too", async () => {
        const storage = await open();
        for (const id of [INT64_MIN, INT64_MAX, 0n])
          expect(await storage.plants.delete(id)).toEqual({ kind: "not-found" });
      });

      it("20 concurrent deletes of one id: exactly one deleted", async () => {
        const storage = await open();
        await storage.plants.create({ id: 7n, name: "Fern" });
        const decisions = await Promise.all(Array.from({ length: 20 }, () => storage.plants.delete(7n)));
        expect(kinds(decisions)).toEqual({ deleted: 1, "not-found": 19 });
      });

      it("creates and deletes of one id racing each other end consistent with their answers", async () => {
        const [first, second] = [await open(), await open()];
        const decisions = await Promise.all(
          Array.from({ length: 60 }, (_, i) => {
            const storage = i % 2 === 0 ? first : second;
            return i % 3 === 0 ? storage.plants.delete(11n) : storage.plants.create({ id: 11n, name: "Fern" });
          }),
        );
        const counts = kinds(decisions);
        // Every create that created was followed by at most one successful delete, and vice versa.
        expect((counts.created ?? 0) - (counts.deleted ?? 0)).toBeGreaterThanOrEqual(0);
        expect((counts.created ?? 0) - (counts.deleted ?? 0)).toBeLessThanOrEqual(1);
        const stored = await first.plants.find(11n);
        expect(stored === undefined ? 0 : 1).toBe((counts.created ?? 0) - (counts.deleted ?? 0));
      });
    });

    describe("list", () => {
      const spread = [INT64_MIN, -(2n ** 53n) - 1n, -1n, 0n, 1n, 2n ** 53n + 1n, INT64_MAX];

      it("lists in signed id order, page by page after the last id", async () => {
        const storage = await open();
        for (const id of [...spread].reverse()) await storage.plants.create({ id, name: `p${id}` });
        expect((await storage.plants.list({ limit: 100 })).map((plant) => plant.id)).toEqual(spread);
        expect((await storage.plants.list({ limit: 3 })).map((plant) => plant.id)).toEqual(spread.slice(0, 3));
        expect((await storage.plants.list({ limit: 3, after: -1n })).map((plant) => plant.id)).toEqual([
          0n,
          1n,
          2n ** 53n + 1n,
        ]);
        expect(await storage.plants.list({ limit: 3, after: INT64_MAX })).toEqual([]);
        expect(await storage.plants.list({ limit: 1, after: INT64_MIN })).toEqual([
          { id: -(2n ** 53n) - 1n, name: `p${-(2n ** 53n) - 1n}` },
        ]);
      });

      it("lists only plants with exactly the tag, in id order", async () => {
        const storage = await open();
        for (const [index, id] of spread.entries()) {
          await storage.plants.create({
            id,
            name: "p",
            ...(index % 2 === 0 ? { tag: "even" } : index === 1 ? { tag: "Even" } : {}),
          });
        }
        const even = spread.filter((_, index) => index % 2 === 0);
        expect((await storage.plants.list({ limit: 100, tag: "even" })).map((plant) => plant.id)).toEqual(even);
        expect(
          (await storage.plants.list({ limit: 2, tag: "even", after: even[1]! })).map((plant) => plant.id),
        ).toEqual(even.slice(2, 4));
        expect(await storage.plants.list({ limit: 100, tag: "none" })).toEqual([]);
      });

      it("does not list a deleted plant", async () => {
        const storage = await open();
        await storage.plants.create({ id: 1n, name: "a" });
        await storage.plants.create({ id: 2n, name: "b" });
        await storage.plants.delete(1n);
        expect(await storage.plants.list({ limit: 10 })).toEqual([{ id: 2n, name: "b" }]);
      });
    });

    describe("durability", () => {
      it("keeps every acknowledged create, delete and token across close and reopen", async () => {
        const first = await open();
        const acknowledged = await Promise.all(
          Array.from({ length: 100 }, (_, i) => first.plants.create({ id: BigInt(i) - 50n, name: `p${i}` })),
        );
        await first.plants.create({ id: 1000n, name: "deleted" });
        expect((await first.plants.delete(1000n)).kind).toBe("deleted");
        const token = await first.tokens.add(hash(1), "ops", ["plants:read"]);
        await first.close();
        const again = await open();
        expect(await again.plants.count()).toBe(100);
        expect(await again.plants.find(1000n)).toBeUndefined();
        for (const outcome of acknowledged) {
          if (outcome.kind !== "created") throw new Error(`unexpected ${outcome.kind}`);
          expect(await again.plants.find(outcome.plant.id)).toEqual(outcome.plant);
        }
        expect(await again.tokens.list()).toEqual([token]);
      });

      it("close() finishes creates already in flight, then refuses new ones as unavailable", async () => {
        const storage = await open();
        const inFlight = Array.from({ length: 60 }, (_, i) => storage.plants.create({ id: BigInt(i), name: `p${i}` }));
        await storage.close();
        expect(kinds(await Promise.all(inFlight))).toEqual({ created: 60 });
        await expect(storage.plants.create({ id: 1000n, name: "late" })).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
        const reopened = await open();
        expect(await reopened.plants.count()).toBe(60);
      });

      it("answers ping() while open", async () => {
        const storage = await open();
        expect(await storage.ping()).toBe(true);
      });
    });

    describe("webhooks", () => {
      const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
      const claim = (storage: Storage, owner: string, extra: Partial<Claim> = {}) =>
        storage.webhooks.claimDue({
          owner,
          limit: 50,
          perEndpoint: 4,
          leaseMs: 60_000,
          busy: [],
          holding: [],
          ...extra,
        });

      it("writes an event and its deliveries with a change, only for subscribed endpoints", async () => {
        const storage = await open();
        const created = await storage.webhooks.addEndpoint("http://127.0.0.1:9/created", ["plant.created"], secret);
        await storage.webhooks.addEndpoint("http://127.0.0.1:9/deleted", ["plant.deleted"], secret);
        await storage.plants.create({ id: 2n ** 53n + 1n, name: "Fern" });
        await storage.plants.create({ id: 2n ** 53n + 1n, name: "Fern" }); // a replay: no event
        const due = await claim(storage, "a");
        expect(due).toHaveLength(1);
        expect(due[0]).toMatchObject({ endpoint: created.id, type: "plant.created", attempt: 1, secrets: [secret] });
        expect(due[0]!.body).toContain('"id":9007199254740993,');
      });

      // A commit writes its events' deliveries: a listing (the admin command, perhaps while no server
      // runs) shows them, and they are due, before any claim.
      it("lists a committed event's deliveries, and says they are due, before any claim", async () => {
        const storage = await open();
        const [first, second] = [
          await storage.webhooks.addEndpoint("http://127.0.0.1:9/1", ["plant.created", "plant.deleted"], secret),
          await storage.webhooks.addEndpoint("http://127.0.0.1:9/2", ["plant.deleted"], secret),
        ];
        await storage.plants.create({ id: 7n, name: "Fern" });
        await storage.plants.delete(7n);
        expect(await storage.webhooks.msUntilNextDue()).toBeLessThanOrEqual(0);

        const listed = await storage.webhooks.listDeliveries({ failedOnly: false, limit: 10 });

        const shown = listed.map(({ type, endpoint, state, attempts }) => ({ type, endpoint, state, attempts }));
        shown.sort((a, b) => a.type.localeCompare(b.type) || a.endpoint - b.endpoint);
        expect(shown).toEqual([
          { type: "plant.created", endpoint: first!.id, state: "pending", attempts: 0 },
          { type: "plant.deleted", endpoint: first!.id, state: "pending", attempts: 0 },
          { type: "plant.deleted", endpoint: second!.id, state: "pending", attempts: 0 },
        ]);
        expect(await storage.webhooks.listDeliveries({ failedOnly: true, limit: 10 })).toEqual([]);
      });

      it("leases a delivery to one owner until it is settled, and never hands out more than an endpoint's share", async () => {
        const storage = await open();
        await storage.webhooks.addEndpoint("http://127.0.0.1:9/x", ["plant.created"], secret);
        for (let id = 1n; id <= 6n; id++) await storage.plants.create({ id, name: "p" });
        const first = await claim(storage, "a", { busy: [] });
        expect(first).toHaveLength(4); // the endpoint's share
        expect(await claim(storage, "b", { busy: [] })).toHaveLength(2); // the rest, not a's leased ones
        expect(await claim(storage, "b")).toEqual([]);
        await storage.webhooks.settle(first[0]!.delivery, "b", { kind: "delivered", status: 200 }); // not b's lease
        await storage.webhooks.settle(first[0]!.delivery, "a", { kind: "retry", delayMs: 0, status: 500 });
        const again = await claim(storage, "c");
        expect(again.map((delivery) => [delivery.delivery, delivery.attempt])).toEqual([[first[0]!.delivery, 2]]);
        // An instance's own in-flight attempts count against the share, and are never claimed twice.
        await storage.webhooks.settle(again[0]!.delivery, "c", { kind: "retry", delayMs: 0 });
        expect(await claim(storage, "c", { busy: [[again[0]!.endpoint, 4]] })).toEqual([]);
        expect(await claim(storage, "c", { holding: [again[0]!.delivery] })).toEqual([]);
      });

      it("an endpoint's backlog hides no other endpoint's deliveries, and the wait says when the next is due", async () => {
        const storage = await open();
        const busy = await storage.webhooks.addEndpoint("http://127.0.0.1:9/busy", ["plant.created"], secret);
        const other = await storage.webhooks.addEndpoint("http://127.0.0.1:9/other", ["plant.deleted"], secret);
        for (let id = 1n; id <= 30n; id++) await storage.plants.create({ id, name: "p" });
        await storage.plants.delete(1n); // the newest delivery, the other endpoint's only one
        expect(await storage.webhooks.msUntilNextDue()).toBeLessThanOrEqual(0);
        // The busy endpoint's share is taken: the other's delivery comes, though 30 older ones are due.
        const claimed = await claim(storage, "a", { busy: [[busy.id, 4]] });
        expect(claimed.map((delivery) => [delivery.endpoint, delivery.type])).toEqual([[other.id, "plant.deleted"]]);
        // Oldest first across endpoints, each endpoint at most its share.
        const oldest = await claim(storage, "a", { limit: 3 });
        expect(oldest.map((delivery) => delivery.endpoint)).toEqual([busy.id, busy.id, busy.id]);
        expect(await claim(storage, "a", { busy: [[busy.id, 3]] })).toHaveLength(1); // what is left of its share
        // 26 are still due, only waiting for a free slot: the worker may not sleep past them.
        expect(await storage.webhooks.msUntilNextDue()).toBeLessThanOrEqual(0);
        for (const delivery of [...claimed, ...oldest]) {
          await storage.webhooks.settle(delivery.delivery, "a", { kind: "retry", delayMs: 3_600_000 });
        }
        expect(await storage.webhooks.msUntilNextDue()).toBeLessThanOrEqual(0);
      });

      it("the wait runs to the earliest retry or lease end when nothing is due", async () => {
        const storage = await open();
        await storage.webhooks.addEndpoint("http://127.0.0.1:9/x", ["plant.created"], secret);
        expect(await storage.webhooks.msUntilNextDue()).toBeUndefined();
        await storage.plants.create({ id: 1n, name: "p" });
        await storage.plants.create({ id: 2n, name: "p" });
        const [first, second] = await claim(storage, "a", { leaseMs: 600_000 });
        expect((await storage.webhooks.msUntilNextDue())!).toBeGreaterThan(550_000); // both leased for 10 minutes
        await storage.webhooks.settle(first!.delivery, "a", { kind: "retry", delayMs: 300_000 });
        // One retry in 5 minutes, one lease that runs out in 10: the retry is next.
        const wait = (await storage.webhooks.msUntilNextDue())!;
        expect(wait).toBeGreaterThan(250_000);
        expect(wait).toBeLessThanOrEqual(300_000);
        await storage.webhooks.settle(second!.delivery, "a", { kind: "delivered", status: 200 });
        await storage.webhooks.settle(first!.delivery, "a", { kind: "delivered", status: 200 }); // not leased: dropped
        expect((await storage.webhooks.msUntilNextDue())!).toBeGreaterThan(250_000);
      });

      it("the oldest pending delivery's age: by when its event happened, retries included", async () => {
        const storage = await open();
        await storage.webhooks.addEndpoint("http://127.0.0.1:9/x", ["plant.created"], secret);
        expect(await storage.webhooks.oldestPendingAgeSeconds()).toBe(0);
        const beforeFirst = Date.now();
        await storage.plants.create({ id: 1n, name: "p" });
        const afterFirst = Date.now();
        while (Date.now() <= afterFirst); // the second event happens on a later millisecond
        await storage.plants.create({ id: 2n, name: "p" });
        const [first, second] = await claim(storage, "a");
        // The first is retried later than the second: it is still the oldest.
        await storage.webhooks.settle(first!.delivery, "a", { kind: "retry", delayMs: 200 });
        await storage.webhooks.settle(second!.delivery, "a", { kind: "retry", delayMs: 0 });
        const measuring = Date.now();
        const ageMs = (await storage.webhooks.oldestPendingAgeSeconds()) * 1000;
        expect(ageMs).toBeGreaterThanOrEqual(measuring - afterFirst);
        expect(ageMs).toBeLessThanOrEqual(Date.now() - beforeFirst);
        // Once both are delivered (the first when its retry is due), none is pending.
        let delivered = 0;
        await waitFor("both deliveries delivered", async () => {
          for (const delivery of await claim(storage, "a")) {
            await storage.webhooks.settle(delivery.delivery, "a", { kind: "delivered", status: 204 });
            delivered++;
          }
          return delivered === 2;
        });
        expect(await storage.webhooks.oldestPendingAgeSeconds()).toBe(0);
      });

      it("a configured URL that leaves is disabled with its deliveries kept, and resumes with them when it is back", async () => {
        const storage = await open();
        const [a, b] = ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"];
        const later = Date.now() + 3_600_000;
        const first = await storage.webhooks.syncConfigured([a, b], secret, later);
        expect(first).toMatchObject({ wasConfigured: false, resumed: [], disabled: [], rotated: [] });
        expect(first.added.map((endpoint) => endpoint.url)).toEqual([a, b]);
        const [endpointA, endpointB] = first.added.map((endpoint) => endpoint.id);
        await storage.plants.create({ id: 1n, name: "p" });
        for (const delivery of await claim(storage, "x")) {
          const result = delivery.endpoint === endpointA ? "failed" : "delivered";
          await storage.webhooks.settle(delivery.delivery, "x", { kind: result, status: 500 });
        }
        await storage.plants.delete(1n); // not claimed yet

        const left = await storage.webhooks.syncConfigured([b], secret, later);
        expect(left).toEqual({
          wasConfigured: true,
          added: [],
          resumed: [],
          disabled: [{ id: endpointA, url: a, pending: 1, failed: 1 }],
          rotated: [],
        });
        expect((await storage.webhooks.listEndpoints()).find((endpoint) => endpoint.id === endpointA)).toMatchObject({
          disabledReason: expect.stringContaining("PLANTSTORE_WEBHOOK_URLS"),
        });
        // Nothing was deleted; no new event goes to the disabled endpoint, none of its own is due.
        await storage.plants.create({ id: 2n, name: "p" });
        const ofA = async () =>
          (await storage.webhooks.listDeliveries({ failedOnly: false, limit: 20 }))
            .filter((delivery) => delivery.endpoint === endpointA)
            .map((delivery) => [delivery.type, delivery.state]);
        expect(await ofA()).toEqual([
          ["plant.deleted", "pending"],
          ["plant.created", "failed"],
        ]);
        const claimed = await claim(storage, "x");
        expect(claimed.map((delivery) => delivery.endpoint)).toEqual([endpointB, endpointB]);
        for (const delivery of claimed) {
          await storage.webhooks.settle(delivery.delivery, "x", { kind: "delivered", status: 204 });
        }
        expect(await storage.webhooks.msUntilNextDue()).toBeUndefined();
        // A second start with the same settings changes nothing.
        expect(await storage.webhooks.syncConfigured([b], secret, later)).toMatchObject({ disabled: [], resumed: [] });

        const back = await storage.webhooks.syncConfigured([a, b], secret, later);
        expect(back).toMatchObject({ added: [], resumed: [{ id: endpointA, url: a }], disabled: [], rotated: [] });
        const resumed = await claim(storage, "x");
        expect(resumed.map((delivery) => [delivery.endpoint, delivery.type])).toEqual([[endpointA, "plant.deleted"]]);
        expect(await ofA()).toEqual([
          ["plant.deleted", "pending"],
          ["plant.created", "failed"],
        ]);
      });

      it("a changed configured secret is a rotation: the old one co-signs until the overlap ends", async () => {
        const storage = await open();
        const url = "http://127.0.0.1:9/a";
        const newer = `whsec_${Buffer.alloc(32, 8).toString("base64")}`;
        const [endpoint] = (await storage.webhooks.syncConfigured([url], secret, 0)).added;
        const rotated = await storage.webhooks.syncConfigured([url], newer, Date.now() + 3_600_000);
        expect(rotated).toMatchObject({ wasConfigured: true, added: [], disabled: [], rotated: [endpoint] });
        await storage.plants.create({ id: 1n, name: "p" });
        expect((await claim(storage, "x"))[0]!.secrets).toEqual([newer, secret]);
        // Rotating back, with an overlap already over: the one secret alone.
        await storage.webhooks.syncConfigured([url], secret, Date.now() - 1);
        await storage.plants.create({ id: 2n, name: "p" });
        expect((await claim(storage, "x"))[0]!.secrets).toEqual([secret]);
        expect(await storage.webhooks.syncConfigured([url], secret, 0)).toMatchObject({ rotated: [] });
      });

      it("prunes, in bounded steps, only delivered deliveries", async () => {
        const storage = await open();
        await storage.webhooks.addEndpoint("http://127.0.0.1:9/x", ["plant.created"], secret);
        for (let id = 1n; id <= 5n; id++) await storage.plants.create({ id, name: "p" });
        const due = await claim(storage, "a");
        for (const delivery of due.slice(0, 3)) {
          await storage.webhooks.settle(delivery.delivery, "a", { kind: "delivered", status: 204 });
        }
        const later = Date.now() + 60_000;
        expect(await storage.webhooks.prune(later, 2)).toBe(2);
        expect(await storage.webhooks.prune(later, 2)).toBe(1);
        expect(await storage.webhooks.prune(later, 2)).toBe(0);
        expect(await storage.webhooks.prune(Date.now() - 60_000, 10)).toBe(0);
        const left = await storage.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
        expect(left.map((delivery) => delivery.state)).toEqual(["pending", "pending"]);
      });
    });

    describe("tokens", () => {
      /** The active tokens' first hash byte and scopes, as a server's first read sees them. */
      async function active(storage: Storage): Promise<Array<[number, string[]]>> {
        const { complete, tokens } = await storage.tokens.changesSince();
        expect(complete).toBe(true);
        return tokens
          .filter((t) => t.active)
          .map((t): [number, string[]] => [t.hash[0]!, t.scopes])
          .sort((a, b) => a[0] - b[0]);
      }

      it("adds, lists and revokes tokens, each with its scopes", async () => {
        const storage = await open();
        const ops = await storage.tokens.add(hash(1), "ops", ["metrics:read"]);
        const ci = await storage.tokens.add(hash(2), "ci", ["plants:read", "plants:write"]);
        expect(ops).toMatchObject({ label: "ops", scopes: ["metrics:read"] });
        expect(ci.scopes).toEqual(["plants:read", "plants:write"]);
        expect(ops.revokedAt).toBeUndefined();
        expect(new Date(ops.createdAt).toISOString()).toBe(ops.createdAt);
        expect(ci.id).not.toBe(ops.id);
        expect(await active(storage)).toEqual([
          [1, ["metrics:read"]],
          [2, ["plants:read", "plants:write"]],
        ]);

        expect(await storage.tokens.revoke(ops.id)).toBe(true);
        expect(await storage.tokens.revoke(ops.id)).toBe(false);
        expect(await storage.tokens.revoke(123_456)).toBe(false);
        expect(await active(storage)).toEqual([[2, ["plants:read", "plants:write"]]]);
        const listed = await storage.tokens.list();
        expect(listed.map((t) => [t.label, t.revokedAt !== undefined])).toEqual([
          ["ops", true],
          ["ci", false],
        ]);
      });

      it("reads only the tokens changed since a version, however many exist", async () => {
        const storage = await open();
        for (let i = 0; i < 300; i++)
          await storage.tokens.add(Buffer.alloc(32, i % 256).fill(i >> 8, 0, 1), `t${i}`, ["plants:read"]);
        const first = await storage.tokens.changesSince();
        expect(first.tokens).toHaveLength(300);
        const unchanged = await storage.tokens.changesSince(first.version);
        expect(unchanged).toEqual({ version: first.version, complete: false, tokens: [], more: false });

        const [victim] = await storage.tokens.list();
        expect(await storage.tokens.revoke(victim!.id)).toBe(true);
        const revoked = await storage.tokens.changesSince(first.version);
        expect(revoked.complete).toBe(false);
        expect(revoked.tokens.map((t) => t.active)).toEqual([false]);
        expect(revoked.version).toBeGreaterThan(first.version);

        await storage.tokens.add(hash(255), "new", ["metrics:read"]);
        const added = await storage.tokens.changesSince(revoked.version);
        expect(added.tokens).toEqual([{ hash: hash(255), scopes: ["metrics:read"], active: true }]);
        expect(await storage.tokens.changesSince(added.version)).toMatchObject({ tokens: [] });

        // A reader ahead of the table (a store restored from a backup) reads everything again.
        const behind = await storage.tokens.changesSince(added.version + 1_000);
        expect(behind.complete).toBe(true);
        expect(behind.tokens).toHaveLength(301);
        expect(behind.tokens.filter((t) => t.active)).toHaveLength(300);
      });

      it(`reads every token a page of ${TOKEN_PAGE_ROWS} at a time, missing no change made between pages`, async () => {
        const storage = await open();
        const count = 2 * TOKEN_PAGE_ROWS + 100;
        const ids: number[] = [];
        for (let i = 0; i < count; i++)
          ids.push((await storage.tokens.add(Buffer.alloc(32, i & 255).fill(i >> 8, 0, 1), `t${i}`, [])).id);
        const held = new Map<string, boolean>();
        const first = await storage.tokens.changesSince();
        expect(first).toMatchObject({ complete: true, more: true });
        expect(first.tokens).toHaveLength(TOKEN_PAGE_ROWS);
        for (const token of first.tokens) held.set(token.hash.toString("hex"), token.active);
        // Between pages: a token of the page read is revoked, and one is added.
        expect(await storage.tokens.revoke(ids[0]!)).toBe(true);
        await storage.tokens.add(hash(255), "between pages", ["plants:read"]);
        let { version, more } = first;
        const pages = [first.tokens.length];
        while (more) {
          const page = await storage.tokens.changesSince(version);
          expect(page.complete).toBe(false);
          pages.push(page.tokens.length);
          for (const token of page.tokens) held.set(token.hash.toString("hex"), token.active);
          ({ version, more } = page);
        }
        expect(pages).toEqual([TOKEN_PAGE_ROWS, TOKEN_PAGE_ROWS, 102]);
        expect(held.size).toBe(count + 1);
        expect([...held.values()].filter((active) => !active)).toHaveLength(1);
        expect(held.get(Buffer.alloc(32, 0).toString("hex"))).toBe(false);
        expect(held.get(hash(255).toString("hex"))).toBe(true);
        expect(await storage.tokens.changesSince(version)).toMatchObject({ tokens: [], more: false });
        expect((await storage.tokens.list()).map((token) => token.id)).toEqual([...ids, ids.at(-1)! + 1]);
      });

      it("never misses a change while instances add and revoke at once", async () => {
        const [writerA, writerB, reader] = [await open(), await open(), await open()];
        const held = new Map<number, boolean>();
        let { version } = await reader.tokens.changesSince();
        const follow = async () => {
          const changes = await reader.tokens.changesSince(version);
          for (const token of changes.tokens) held.set(token.hash[0]!, token.active);
          version = changes.version;
        };
        const writes = Array.from({ length: 40 }, async (_, i) => {
          const writer = i % 2 ? writerA : writerB;
          const info = await writer.tokens.add(hash(i + 1), `w${i}`, ["plants:read"]);
          if (i % 3 === 0) await writer.tokens.revoke(info.id);
        });
        let done = false;
        const reading = (async () => {
          while (!done) await follow();
        })();
        await Promise.all(writes);
        done = true;
        await reading;
        await follow();
        const expected = new Map(Array.from({ length: 40 }, (_, i) => [i + 1, i % 3 !== 0]));
        expect(new Map([...held].sort((a, b) => a[0] - b[0]))).toEqual(expected);
      });

      it("adds a first-run token only on a store that has never held a token", async () => {
        const storage = await open();
        expect(await storage.tokens.addFirstRunToken(hash(1), "first run")).toBe(true);
        expect(await storage.tokens.addFirstRunToken(hash(2), "first run")).toBe(false);
        // The first-run token may do everything.
        expect(await active(storage)).toEqual([[1, ["plants:read", "plants:write", "metrics:read"]]]);
        const [first] = await storage.tokens.list();
        expect(await storage.tokens.revoke(first!.id)).toBe(true);
        // Every token revoked: still none, and still none after a restart.
        expect(await storage.tokens.addFirstRunToken(hash(3), "first run")).toBe(false);
        await storage.close();
        expect(await (await open()).tokens.addFirstRunToken(hash(4), "first run")).toBe(false);
      });

      it("adds no first-run token to a store that held a token made by the admin command or configured", async () => {
        const made = await open();
        const info = await made.tokens.add(hash(1), "ci", ["plants:read"]);
        await made.tokens.revoke(info.id);
        expect(await made.tokens.addFirstRunToken(hash(2), "first run")).toBe(false);
        await made.close();
        await store?.destroy();
        store = undefined;

        const configured = await open();
        await configured.tokens.markTokensHeld();
        expect(await configured.tokens.addFirstRunToken(hash(3), "first run")).toBe(false);
        expect(await configured.tokens.list()).toEqual([]);
      });

      it("adds a first-run token atomically: racing instances add exactly one", async () => {
        const [first, second] = [await open(), await open()];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).tokens.addFirstRunToken(hash(i + 1), `r${i}`)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await active(first)).toHaveLength(1);
        expect(await second.tokens.list()).toHaveLength(1);
      });
    });
  });
}
