import { LIST_COUNT_MAX, type StoredPlant } from "@plantstore/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { clientFor, failureOf, useTestServer, withProxy } from "./test-support/harness.js";

// This file's server holds exactly the plants below (and, from the count test on, a thousand more).
const context = useTestServer();
const client = () => clientFor(context.server.url);

const seeded: StoredPlant[] = [
  { id: -(2n ** 63n), name: "Monstera deliciosa", tag: "indoor" },
  { id: 2n ** 53n + 1n, name: "MONSTERA adansonii" },
  { id: 2n ** 63n - 1n, name: "monstera", tag: "indoor" },
  { id: 7n, name: "Moon flower" },
  { id: 8n, name: "Édelweiss" },
  { id: 9n, name: "100% Fern" },
  { id: 10n, name: "1000 Fern" },
  ...Array.from({ length: 30 }, (_, i): StoredPlant => ({ id: BigInt(100 + i * 3), name: `Ivy ${i}` })),
];
const byId = (a: StoredPlant, b: StoredPlant) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const named = (pattern: RegExp) => seeded.filter((plant) => pattern.test(plant.name)).sort(byId);

beforeAll(async () => {
  await Promise.all(seeded.map((plant) => client().createPlant(plant)));
});

async function collect(iterable: AsyncIterable<StoredPlant>): Promise<StoredPlant[]> {
  const plants: StoredPlant[] = [];
  for await (const plant of iterable) plants.push(plant);
  return plants;
}

describe("listPlants by name, in either order, with a count", () => {
  it("finds a name prefix with ASCII letters in either case, ids exact", async () => {
    const page = await client().listPlants({ name: "monSTERA" });
    expect(page).toEqual({ plants: named(/^monstera/i), next: undefined });
    expect((await client().listPlants({ name: "édel" })).plants).toEqual([]);
    expect((await client().listPlants({ name: "Édel" })).plants).toEqual(named(/^Édel/));
    expect((await client().listPlants({ name: "100%" })).plants).toEqual(named(/^100%/));
  });

  it("pages in descending order, the tag and the name together", async () => {
    const ivies = named(/^Ivy/).reverse();
    const first = await client().listPlants({ name: "ivy", order: "desc", limit: 4 });
    expect(first).toEqual({ plants: ivies.slice(0, 4), next: ivies[3]!.id });
    const second = await client().listPlants({ name: "ivy", order: "desc", limit: 4, after: first.next });
    expect(second.plants).toEqual(ivies.slice(4, 8));
    const tagged = await client().listPlants({ name: "MON", tag: "indoor", order: "desc" });
    expect(tagged.plants.map((plant) => plant.id)).toEqual([2n ** 63n - 1n, -(2n ** 63n)]);
  });

  it("answers the count when asked: exact, or more than 1000", async () => {
    expect(await client().listPlants({ name: "mon", count: true, limit: 1 })).toMatchObject({
      count: { count: 3, more: false },
    });
    expect(await client().listPlants({ name: "zzz", count: true })).toEqual({
      plants: [],
      next: undefined,
      count: { count: 0, more: false },
    });
    expect((await client().listPlants({ name: "mon" })).count).toBeUndefined();
    await Promise.all(
      Array.from({ length: LIST_COUNT_MAX }, (_, i) =>
        context.server.storage.plants.create({ id: 1_000_000n + BigInt(i), name: `Bulk ${i}` }),
      ),
    );
    expect((await client().listPlants({ count: true, limit: 1 })).count).toEqual({ count: 1000, more: true });
    expect((await client().listPlants({ name: "bulk", count: true, limit: 1 })).count).toEqual({
      count: 1000,
      more: false,
    });
  });

  it("refuses a bad name or order before sending", async () => {
    for (const [query, message] of [
      [{ name: "" }, "name: must not be empty"],
      [{ name: "x".repeat(257) }, "name: must be at most 256 characters"],
      [{ order: "up" as "asc" }, "order: must be asc or desc"],
    ] as const) {
      const error = await failureOf(client().listPlants(query));
      expect(error).toMatchObject({ kind: "invalid-request", attempts: 0 });
      expect(error.message).toContain(message);
    }
  });

  it("refuses a 200 without the count it asked for", async () => {
    await withProxy(
      context.server.url,
      [{ kind: "respond", status: 200, headers: { "Content-Type": "application/json" }, body: "[]" }],
      async (url) => {
        const error = await failureOf(clientFor(url).listPlants({ count: true }));
        expect(error).toMatchObject({ kind: "unexpected-response" });
        expect(error.message).toContain("Plant-Store-Count header is missing");
      },
    );
  });
});

describe("plants() by name and order", () => {
  it.each([1, 4, undefined])("visits every plant of a name once, backwards, with pages of %s", async (pageSize) => {
    expect(await collect(client().plants({ name: "IVY ", order: "desc", pageSize }))).toEqual(named(/^Ivy /).reverse());
    expect(await collect(client().plants({ name: "mon", pageSize }))).toEqual(named(/^mon/i));
  });

  it("follows a page that ended early (fewer plants than asked, even none) to the plants after it", async () => {
    const ivies = named(/^Ivy/);
    const cursor = ivies[10]!.id;
    const early = {
      kind: "respond" as const,
      status: 200,
      headers: { "Content-Type": "application/json", Link: `</plants?limit=5&after=${cursor}&name=ivy>; rel="next"` },
      body: "[]",
    };
    await withProxy(context.server.url, [early], async (url) => {
      expect(await collect(clientFor(url).plants({ name: "ivy", pageSize: 5 }))).toEqual(ivies.slice(11));
    });
  });

  it.each([
    ["behind the page's last plant", `[{"id": 20, "name": "Ivy"}]`, "10"],
    ["not beyond where the page started", "[]", "5"],
  ])("refuses a next cursor %s", async (_what, body, after) => {
    const answer = {
      kind: "respond" as const,
      status: 200,
      headers: { "Content-Type": "application/json", Link: `</plants?after=${after}&name=ivy>; rel="next"` },
      body,
    };
    await withProxy(context.server.url, [answer], async (url) => {
      const error = await failureOf(collect(clientFor(url).plants({ name: "ivy", after: 5 })));
      expect(error).toMatchObject({ kind: "unexpected-response" });
      expect(error.message).toContain("the server's next page starts after");
    });
  });
});
