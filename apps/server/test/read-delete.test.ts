import { ErrorCode, LIST_LIMIT_DEFAULT } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { expectError } from "../src/test-support/expect-error.js";
import { exactJson, startTestServer, type TestServer } from "../src/test-support/test-server.js";

const TWO_53 = 2n ** 53n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

interface Stored {
  id: bigint;
  name: string;
  tag?: string;
}

/** The `after` of a `Link: <…>; rel="next"` header, with its whole target. */
function nextLink(response: Response): string | undefined {
  const link = response.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  if (match === null) throw new Error(`malformed Link header: ${link}`);
  return match[1];
}

describe.each(testBackends())("reading and deleting plants on $name", (backend) => {
  let server: TestServer;
  /** Each test works in its own id range, so that tests do not see each other's plants. */
  let base = 0n;
  const range = () => (base += 1_000_000_000n);

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  async function list(query: string): Promise<{ response: Response; plants: Stored[] }> {
    const response = await server.call("GET", `/plants${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return { response, plants: (await exactJson(response)) as Stored[] };
  }

  describe("GET /plants/{id}", () => {
    it("answers the stored plant with its exact id, and the tag only when there is one", async () => {
      for (const plant of [
        { id: TWO_53 + 1n, name: "Monstera", tag: "indoor" },
        { id: -(TWO_53 + 1n), name: "Fern" },
        { id: INT64_MAX, name: "Max" },
        { id: INT64_MIN, name: "Min" },
      ]) {
        await server.create(plant);
        const response = await server.call("GET", `/plants/${plant.id}`);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
        const text = await response.clone().text();
        expect(text).toContain(`"id":${plant.id},`); // every digit, a JSON integer, never a string
        expect(await exactJson(response)).toEqual(plant);
      }
    });

    it("answers an unknown id with 404 PLANT_NOT_FOUND, not the unknown-path 404", async () => {
      await expectError(await server.call("GET", `/plants/${range()}`), 404, ErrorCode.PLANT_NOT_FOUND);
      await expectError(await server.call("GET", "/plants/1/leaves"), 404, ErrorCode.NOT_FOUND);
    });

    it("asks for the token before anything else", async () => {
      for (const path of ["/plants/1", "/plants/abc", "/plants?limit=0", "/plants?bogus=1"]) {
        await expectError(await server.call("GET", path, { authorization: "" }), 401, ErrorCode.MISSING_CREDENTIAL);
      }
      await expectError(
        await server.call("DELETE", "/plants/1", { authorization: "" }),
        401,
        ErrorCode.MISSING_CREDENTIAL,
      );
    });
  });

  describe("path ids", () => {
    it.each(["abc", "1.5", "01", "+1", "-01", "1e3", "9223372036854775808", "-9223372036854775809", "%20", "0x10"])(
      "refuses /plants/%s with 400 INVALID_PARAMETER naming id",
      async (id) => {
        await expectError(await server.call("GET", `/plants/${id}`), 400, ErrorCode.INVALID_PARAMETER, /^id: /);
        await expectError(await server.call("DELETE", `/plants/${id}`), 400, ErrorCode.INVALID_PARAMETER, /^id: /);
      },
    );

    it("accepts the canonical ends of int64 and zero", async () => {
      for (const id of [INT64_MIN, INT64_MAX, 0n]) {
        expect([200, 404]).toContain((await server.call("GET", `/plants/${id}`)).status);
      }
    });
  });

  describe("GET /plants", () => {
    it("answers a JSON array in signed id order, -2^63 first", async () => {
      const tag = `order-${range()}`;
      const start = range();
      const ids = [INT64_MAX - 2n, start, start - 1n, start + TWO_53, INT64_MIN + 2n, start - TWO_53, start + 1n];
      for (const id of ids) await server.create({ id, name: `p${id}`, tag });
      const { plants } = await list(`?tag=${tag}`);
      expect(plants.map((plant) => plant.id)).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      for (const plant of plants) expect(plant).toEqual({ id: plant.id, name: `p${plant.id}`, tag });
    });

    it(`holds ${LIST_LIMIT_DEFAULT} plants by default and links the next page only when more follow`, async () => {
      const tag = `default-${range()}`;
      const start = range();
      for (let i = 0n; i < BigInt(LIST_LIMIT_DEFAULT) + 1n; i++) await server.create({ id: start + i, name: "p", tag });
      const first = await list(`?tag=${tag}`);
      expect(first.plants).toHaveLength(LIST_LIMIT_DEFAULT);
      const last = start + BigInt(LIST_LIMIT_DEFAULT) - 1n;
      expect(first.response.headers.get("link")).toBe(
        `</plants?limit=${LIST_LIMIT_DEFAULT}&after=${last}&tag=${tag}>; rel="next"`,
      );
      const second = await list(`?limit=${LIST_LIMIT_DEFAULT}&after=${last}&tag=${tag}`);
      expect(second.plants.map((plant) => plant.id)).toEqual([last + 1n]);
      expect(second.response.headers.get("link")).toBeNull();
      // Exactly `limit` plants left: a full page, and no link (nothing follows).
      const exact = await list(`?limit=1&after=${last}&tag=${tag}`);
      expect(exact.plants).toHaveLength(1);
      expect(exact.response.headers.get("link")).toBeNull();
    });

    it("lists only the plants with exactly the tag (case and spaces included), and encodes it in the link", async () => {
      const start = range();
      const tag = `a b+c,"d"/é ${start}`;
      await server.create({ id: start, name: "x", tag });
      await server.create({ id: start + 1n, name: "x", tag: tag.toUpperCase() });
      await server.create({ id: start + 2n, name: "x", tag });
      await server.create({ id: start + 3n, name: "x" });
      const first = await list(`?limit=1&tag=${encodeURIComponent(tag)}`);
      expect(first.plants.map((plant) => plant.id)).toEqual([start]);
      const link = nextLink(first.response);
      expect(link).toBe(`/plants?limit=1&after=${start}&tag=${encodeURIComponent(tag)}`);
      const second = await list(link!.slice("/plants".length));
      expect(second.plants.map((plant) => plant.id)).toEqual([start + 2n]);
      expect(second.response.headers.get("link")).toBeNull();
    });

    it.each([
      ["limit=0", /^limit: /],
      ["limit=1001", /^limit: /],
      ["limit=1.5", /^limit: /],
      ["limit=abc", /^limit: /],
      ["limit=", /^limit: /],
      ["limit=-1", /^limit: /],
      ["limit=%2B5", /^limit: /],
      ["after=9223372036854775808", /^after: /],
      ["after=-9223372036854775809", /^after: /],
      ["after=1.5", /^after: /],
      ["after=abc", /^after: /],
      ["after=", /^after: /],
      ["tag=", /^tag: /],
      [`tag=${"x".repeat(65)}`, /^tag: /],
      ["tag=%00", /^tag: /],
      ["limit=5&limit=6", /^limit: must be given at most once$/],
      ["tag=a&tag=a", /^tag: must be given at most once$/],
      ["bogus=1", /^bogus: is not a query parameter here$/],
      ["Limit=5", /^Limit: is not a query parameter here$/],
    ])("refuses ?%s with 400 INVALID_PARAMETER naming it", async (query, message) => {
      await expectError(await server.call("GET", `/plants?${query}`), 400, ErrorCode.INVALID_PARAMETER, message);
    });

    it("refuses query parameters on operations that take none", async () => {
      await expectError(await server.call("GET", "/plants/1?x=1"), 400, ErrorCode.INVALID_PARAMETER, /^x: /);
      await expectError(await server.call("DELETE", "/plants/1?x=1"), 400, ErrorCode.INVALID_PARAMETER, /^x: /);
      const post = await fetch(`${server.url}/plants?x=1`, {
        method: "POST",
        headers: { authorization: server.authorization, "content-type": "application/json" },
        body: `{"id": ${range()}, "name": "a"}`,
      });
      await expectError(post, 400, ErrorCode.INVALID_PARAMETER, /^x: /);
    });
  });

  describe("DELETE /plants/{id}", () => {
    it("answers 204 with no body, then 404; the id is free for any new plant", async () => {
      const id = range();
      await server.create({ id, name: "Fern", tag: "indoor" });
      const deleted = await server.call("DELETE", `/plants/${id}`);
      expect(deleted.status).toBe(204);
      expect(await deleted.text()).toBe("");
      expect(deleted.headers.get("content-length")).toBeNull();
      expect(await server.storage.plants.find(id)).toBeUndefined();
      await expectError(await server.call("GET", `/plants/${id}`), 404, ErrorCode.PLANT_NOT_FOUND);
      await expectError(await server.call("DELETE", `/plants/${id}`), 404, ErrorCode.PLANT_NOT_FOUND);
      // Another name and tag: a new plant, not a conflict.
      const again = await server.post({ id, name: "Moss" });
      expect(again.status).toBe(200);
      expect(again.headers.get("plant-store-outcome")).toBe("created");
      expect(await exactJson(await server.call("GET", `/plants/${id}`))).toEqual({ id, name: "Moss" });
    });

    it("answers 404 PLANT_NOT_FOUND for an id that never existed", async () => {
      await expectError(await server.call("DELETE", `/plants/${range()}`), 404, ErrorCode.PLANT_NOT_FOUND);
    });

    it("read-your-writes: a read right after a 200 or a 204 sees it", async () => {
      const id = range();
      for (let round = 0; round < 20; round++) {
        expect((await server.post({ id, name: `r${round}` })).status).toBe(200);
        expect(((await exactJson(await server.call("GET", `/plants/${id}`))) as Stored).name).toBe(`r${round}`);
        expect((await list(`?limit=1&after=${id - 1n}`)).plants.map((plant) => plant.id)).toEqual([id]);
        expect((await server.call("DELETE", `/plants/${id}`)).status).toBe(204);
        expect((await server.call("GET", `/plants/${id}`)).status).toBe(404);
      }
    });

    it("a delete racing creates and replays of the same id ends with the store matching the answers", async () => {
      const id = range();
      const body = { id, name: "Racer" };
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          i % 3 === 0 ? server.call("DELETE", `/plants/${id}`) : server.post(body),
        ),
      );
      const created = answers.filter((response) => response.headers.get("plant-store-outcome") === "created").length;
      const deleted = answers.filter((response) => response.status === 204).length;
      for (const response of answers) expect([200, 204, 404]).toContain(response.status);
      const stored = await server.storage.plants.find(id);
      // Every create that created is undone by at most one delete: the store holds the difference.
      expect(created - deleted).toBe(stored === undefined ? 0 : 1);
    });
  });
});

describe.each(testBackends())("walking the next links of a whole store on $name", (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  it("visits every one of 2,500 plants exactly once, in order; with a tag exactly the tagged ones", async () => {
    // Ids spread over the whole int64 range, the ends and ±(2^53+1) included; every third one tagged.
    const ids = new Set<bigint>([INT64_MIN, INT64_MAX, TWO_53 + 1n, -(TWO_53 + 1n), TWO_53, 0n]);
    let seed = 0x2545f4914f6cdd1dn;
    while (ids.size < 2_500) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n);
      ids.add(seed - 2n ** 63n);
    }
    const plants: Stored[] = [...ids].map((id, index) => ({
      id,
      name: `walk ${index}`,
      ...(index % 3 === 0 ? { tag: "tagged" } : {}),
    }));
    for (let i = 0; i < plants.length; i += 250) {
      const answers = await Promise.all(plants.slice(i, i + 250).map((plant) => server.post(plant)));
      expect(answers.map((response) => response.status)).toEqual(Array(answers.length).fill(200));
    }
    const inOrder = (wanted: Stored[]) => wanted.map((plant) => plant.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

    async function walk(first: string): Promise<{ seen: Stored[]; pages: number }> {
      const seen: Stored[] = [];
      let pages = 0;
      for (let path: string | undefined = first; path !== undefined; pages++) {
        const response = await server.call("GET", path);
        expect(response.status).toBe(200);
        seen.push(...((await exactJson(response)) as Stored[]));
        path = nextLink(response);
      }
      return { seen, pages };
    }

    const all = await walk("/plants?limit=1000");
    expect(all.pages).toBe(3);
    expect(all.seen.map((plant) => plant.id)).toEqual(inOrder(plants));
    expect(new Map(all.seen.map((plant) => [plant.id, plant]))).toEqual(
      new Map(plants.map((plant) => [plant.id, plant])),
    );

    const tagged = plants.filter((plant) => plant.tag === "tagged");
    for (const first of ["/plants?limit=1000&tag=tagged", "/plants?limit=7&tag=tagged"]) {
      expect((await walk(first)).seen.map((plant) => plant.id)).toEqual(inOrder(tagged));
    }
  });
});
