import type { StoredPlant } from "@plantstore/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { nextCursorOf } from "./client.js";
import type { PlantStoreError } from "./plant-store-error.js";
import type { ProxyFault } from "./testing.js";
import { clientFor, failureOf, useTestServer, withProxy } from "./test-support/harness.js";

// This file's server holds exactly the plants below, so that every listing can be checked whole.
const context = useTestServer();
const client = () => clientFor(context.server.url);

/** A tag with characters a query must encode (`&`, `/`, `?`, `#`, `%`, a space, non-ASCII). */
const ODD_TAG = "in & out/?#% 🌿";

function seedPlants(): StoredPlant[] {
  const plants: StoredPlant[] = [
    { id: -(2n ** 63n), name: "Min", tag: ODD_TAG },
    { id: 2n ** 63n - 1n, name: "Max", tag: ODD_TAG },
    { id: 2n ** 53n + 1n, name: "Above 2^53, odd", tag: "exact" },
    { id: 2n ** 53n, name: "2^53", tag: "exact" },
    { id: -(2n ** 53n + 1n), name: 'Below -2^53, "odd"', tag: "exact" },
    { id: 0n, name: "Zero" },
  ];
  for (let i = 0; i < 150; i++) {
    const id = BigInt(i - 75) * 1_000_003n;
    if (id === 0n) continue;
    const tag = [ODD_TAG, "outdoor", undefined][i % 3];
    plants.push(tag === undefined ? { id, name: `Plant ${i}` } : { id, name: `Plant ${i}`, tag });
  }
  return plants;
}

const seeded = seedPlants();
/** Every seeded plant in the order the server lists them: ascending signed id. */
const all = [...seeded].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const tagged = (tag: string) => all.filter((plant) => plant.tag === tag);

beforeAll(async () => {
  await Promise.all(seeded.map((plant) => client().createPlant(plant)));
});

async function collect(iterable: AsyncIterable<StoredPlant>): Promise<StoredPlant[]> {
  const plants: StoredPlant[] = [];
  for await (const plant of iterable) plants.push(plant);
  return plants;
}

describe("listPlants", () => {
  it("answers a page in ascending id order, with the cursor of the next page", async () => {
    const first = await client().listPlants({ limit: 3 });
    expect(first).toEqual({ plants: all.slice(0, 3), next: all[2]!.id });
    const second = await client().listPlants({ limit: 3, after: first.next });
    expect(second).toEqual({ plants: all.slice(3, 6), next: all[5]!.id });
  });

  it("keeps ids exact: -2^63, -(2^53+1), 2^53, 2^53+1 and 2^63-1 are bigints with every digit", async () => {
    const { plants } = await client().listPlants({ tag: "exact", limit: 1_000 });
    expect(plants.map((plant) => plant.id)).toEqual([-(2n ** 53n + 1n), 2n ** 53n, 2n ** 53n + 1n]);
    expect(plants.every((plant) => typeof plant.id === "bigint")).toBe(true);
    const ends = await client().listPlants({ tag: ODD_TAG, limit: 1_000 });
    expect([ends.plants[0]?.id, ends.plants.at(-1)?.id]).toEqual([-(2n ** 63n), 2n ** 63n - 1n]);
  });

  it("has no next cursor on the last page, also when the page is exactly full", async () => {
    expect(await client().listPlants({ limit: all.length })).toEqual({ plants: all, next: undefined });
    expect(await client().listPlants({ after: all.at(-2)!.id })).toEqual({ plants: [all.at(-1)], next: undefined });
    expect(await client().listPlants({ after: 2n ** 63n - 1n })).toEqual({ plants: [], next: undefined });
    expect(await client().listPlants({ tag: "nobody has this tag" })).toEqual({ plants: [], next: undefined });
  });

  it("uses the server's default page size when no limit is given", async () => {
    const page = await client().listPlants();
    expect(page.plants).toEqual(all.slice(0, 100));
    expect(page.next).toBe(all[99]!.id);
  });

  it("filters by tag, pages included, with a tag the query must encode", async () => {
    const expected = tagged(ODD_TAG);
    const first = await client().listPlants({ tag: ODD_TAG, limit: 10 });
    expect(first.plants).toEqual(expected.slice(0, 10));
    const second = await client().listPlants({ tag: ODD_TAG, limit: 10, after: first.next });
    expect(second.plants).toEqual(expected.slice(10, 20));
  });

  it("refuses page parameters the contract refuses, before sending", async () => {
    const cases: Array<[Parameters<ReturnType<typeof client>["listPlants"]>[0], string]> = [
      [{ limit: 0 }, "limit: must be an integer from 1 to 1000"],
      [{ limit: 1_001 }, "limit: must be an integer from 1 to 1000"],
      [{ limit: 2.5 }, "limit: must be an integer from 1 to 1000"],
      [{ tag: "" }, "tag: must not be empty"],
      [{ after: 2 ** 53 + 2 }, "after: must be a safe integer when given as a number"],
      [{ after: 2n ** 63n }, "after: must be between -2^63 and 2^63-1 (int64)"],
    ];
    for (const [query, message] of cases) {
      const error = await failureOf(client().listPlants(query));
      expect(error).toMatchObject({ kind: "invalid-request", attempts: 0 });
      expect(error.message).toContain(message);
    }
  });

  it("is retried like a create: a dropped connection and a 503 end in the page", async () => {
    await withProxy(
      context.server.url,
      [{ kind: "drop" }, { kind: "status-503", retryAfter: "0" }],
      async (url, proxy) => {
        expect(await clientFor(url).listPlants({ limit: 5 })).toEqual({ plants: all.slice(0, 5), next: all[4]!.id });
        expect(proxy.connections()).toBe(3);
      },
    );
  });

  it("reads exactly through a caller's fetch too", async () => {
    const page = await clientFor(context.server.url, { fetch }).listPlants({ tag: "exact" });
    expect(page.plants.map((plant) => plant.id)).toEqual([-(2n ** 53n + 1n), 2n ** 53n, 2n ** 53n + 1n]);
  });

  it.each<[string, ProxyFault, string]>([
    [
      "an id that is not an integer",
      {
        kind: "respond",
        status: 200,
        headers: { "Content-Type": "application/json" },
        body: '[{"id": 1.5, "name": "x"}]',
      },
      "0.id: must be an integer",
    ],
    [
      "an id beyond int64",
      {
        kind: "respond",
        status: 200,
        headers: { "Content-Type": "application/json" },
        body: '[{"id": 9223372036854775808, "name": "x"}]',
      },
      "0.id: must be between -2^63 and 2^63-1 (int64)",
    ],
    [
      "a next link without a cursor",
      {
        kind: "respond",
        status: 200,
        headers: { "Content-Type": "application/json", Link: '</plants?limit=5>; rel="next"' },
        body: "[]",
      },
      "next-page link has no valid after cursor",
    ],
  ])("refuses a 200 with %s, without retrying", async (_what, fault, message) => {
    await withProxy(context.server.url, [fault], async (url) => {
      const error = await failureOf(clientFor(url).listPlants());
      expect(error).toMatchObject({ kind: "unexpected-response", attempts: 1 });
      expect(error.message).toContain(message);
    });
  });
});

describe("plants(): every plant, page by page", () => {
  it.each([1, 7, 100, 1_000, undefined])("visits every plant once, in id order, with pages of %s", async (pageSize) => {
    expect(await collect(client().plants({ pageSize }))).toEqual(all);
  });

  it.each([4, 1_000])("visits every plant with a tag once, in id order, with pages of %s", async (pageSize) => {
    for (const tag of [ODD_TAG, "outdoor", "exact"]) {
      expect(await collect(client().plants({ tag, pageSize }))).toEqual(tagged(tag));
    }
  });

  it("starts after a given id", async () => {
    const start = all[40]!.id;
    expect(await collect(client().plants({ after: start, pageSize: 9 }))).toEqual(all.slice(41));
    expect(await collect(client().plants({ after: 2n ** 63n - 1n }))).toEqual([]);
  });

  it("fetches pages only as they are needed", async () => {
    await withProxy(context.server.url, [], async (url) => {
      const calls: string[] = [];
      const countingFetch: typeof fetch = (input, init) => {
        calls.push(String(input));
        return fetch(input, init);
      };
      const iterator = clientFor(url, { fetch: countingFetch }).plants({ pageSize: 5 });
      for (let i = 0; i < 5; i++) await iterator.next();
      expect(calls).toHaveLength(1);
      await iterator.next();
      expect(calls).toHaveLength(2);
      expect(new URL(calls[1]!).searchParams.get("after")).toBe(String(all[4]!.id));
      await iterator.return();
    });
  });

  it("stops with an aborted error when its signal fires between pages", async () => {
    const controller = new AbortController();
    const seen: StoredPlant[] = [];
    const error = await failureOf(
      (async () => {
        for await (const plant of client().plants({ pageSize: 2, signal: controller.signal })) {
          seen.push(plant);
          controller.abort();
        }
      })(),
    );
    expect(error).toMatchObject({ kind: "aborted", attempts: 0 });
    expect(seen).toEqual(all.slice(0, 2));
  });

  it("refuses a bad page size when iteration starts", async () => {
    const error = await failureOf(collect(client().plants({ pageSize: 0 })));
    expect((error as PlantStoreError).kind).toBe("invalid-request");
  });
});

describe("nextCursorOf (the Link header)", () => {
  it.each([
    [null, undefined],
    ['</plants?limit=2&after=9007199254740993>; rel="next"', 9007199254740993n],
    ["</plants?limit=2&after=-9223372036854775808&tag=a%2Cb>; rel=next", -(2n ** 63n)],
    ['</plants?after=1>; rel="prev", </plants?after=2>; rel="next last"', 2n],
    ['<http://example.test/plants?after=3>; title="x, y"; rel="next"', 3n],
    ['</plants?after=5>; rel="prev"', undefined],
    ['</plants?after=6>; title="a; rel=next"; rel="prev"', undefined],
    ['</plants?after=7>; REL = "NEXT"', 7n],
    [`</plants?after=8>; rel="next", ${"<".repeat(100_000)}`, 8n],
    [`${"<a".repeat(50_000)}`, undefined],
  ])("reads %j", (header, cursor) => {
    // (A header of 100,000 `<` took minutes when each `<` started a scan to the end.)
    expect(nextCursorOf(header)).toBe(cursor);
  });

  it.each(['</plants?limit=2>; rel="next"', '</plants?after=01>; rel="next"', '</plants?after=1e3>; rel="next"'])(
    "refuses %j",
    (header) => {
      expect(() => nextCursorOf(header)).toThrow("next-page link has no valid after cursor");
    },
  );
});
