import { COUNT_HEADER, ErrorCode } from "@plantstore/contract";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAME_RANGE_READ_MAX, NAME_SCAN_WINDOW } from "../src/plants/list-plants.js";
import { countSql, pageSql, scanSql, type Dialect } from "../src/store/plant-queries.js";
import { PostgresDialect } from "../src/store/postgres/plant-repository.js";
import { SqliteDialect } from "../src/store/sqlite/reads.js";
import { testBackends } from "../src/test-support/databases.js";
import { expectError } from "../src/test-support/expect-error.js";
import { exactJson, startTestServer, type TestServer } from "../src/test-support/test-server.js";

const TWO_53 = 2n ** 53n;

interface Stored {
  id: bigint;
  name: string;
  tag?: string;
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const idsOf = (plants: readonly Stored[]) => plants.map((plant) => plant.id);
const sortedIds = (plants: readonly Stored[], order: "asc" | "desc" = "asc") => {
  const ids = idsOf(plants).sort(ascending);
  return order === "asc" ? ids : ids.reverse();
};

/** The target of a `Link: <…>; rel="next"` header. */
function nextLink(response: Response): string | undefined {
  const link = response.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  if (match === null) throw new Error(`malformed Link header: ${link}`);
  return match[1];
}

/**
 * Plants written into the database directly, as a bulk load would (thousands through HTTP would
 * take minutes), while the server runs: it reads them like any other committed plants.
 */
async function insertDirectly(databaseUrl: string, plants: readonly Stored[]): Promise<void> {
  if (databaseUrl.startsWith("sqlite:")) {
    const db = new Database(databaseUrl.slice("sqlite:".length));
    try {
      db.pragma("busy_timeout = 10000");
      const insert = db.prepare<[bigint, string, string | null]>("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)");
      db.transaction(() => {
        for (const plant of plants) insert.run(plant.id, plant.name, plant.tag ?? null);
      })();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      "INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])",
      [
        plants.map((plant) => plant.id.toString()),
        plants.map((plant) => plant.name),
        plants.map((plant) => plant.tag ?? null),
      ],
    );
    await client.query("ANALYZE plants");
  } finally {
    await client.end();
  }
}

/** The plan the database makes of a statement as the server writes it (plant-queries.ts, the backend's dialect). */
async function planOf(databaseUrl: string, build: (dialect: Dialect) => string): Promise<string> {
  if (databaseUrl.startsWith("sqlite:")) {
    const dialect = new SqliteDialect();
    const sql = build(dialect);
    const db = new Database(databaseUrl.slice("sqlite:".length), { readonly: true });
    try {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(dialect.params) as Array<{ detail: string }>;
      return rows.map((row) => row.detail).join("\n");
    } finally {
      db.close();
    }
  }
  const dialect = new PostgresDialect();
  const sql = build(dialect);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, dialect.params);
    return result.rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.end();
  }
}

describe.each(testBackends())("finding plants by name, sorting and counting on $name", (backend) => {
  let server: TestServer;
  let databaseUrl: string;
  /** Each test names its plants with its own first word, so that tests do not see each other's plants. */
  let test = 0;
  const word = () => `t${++test}`;
  /** Ids of the test's own (beyond the first's, which holds the ends of int64), all above 2^53. */
  const at = (k: bigint) => TWO_53 + BigInt(test) * 10_000_000n + k;

  beforeAll(async () => {
    databaseUrl = await backend.freshDatabaseUrl();
    server = await startTestServer({ databaseUrl });
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  async function list(query: string): Promise<{ response: Response; plants: Stored[] }> {
    const response = await server.call("GET", `/plants${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return { response, plants: (await exactJson(response.clone())) as Stored[] };
  }

  /** Every plant of a listing, following its next links; checks that the order never goes back. */
  async function walk(first: string, order: "asc" | "desc" = "asc"): Promise<{ seen: Stored[]; pages: number }> {
    const seen: Stored[] = [];
    let pages = 0;
    for (let path: string | undefined = first; path !== undefined; pages++) {
      const { response, plants } = await list(path.slice("/plants".length));
      for (const plant of plants) {
        const last = seen.at(-1)?.id;
        if (last !== undefined) expect(order === "asc" ? plant.id > last : plant.id < last).toBe(true);
        seen.push(plant);
      }
      path = nextLink(response);
    }
    return { seen, pages };
  }

  const byName = (prefix: string, more = "") => `?name=${encodeURIComponent(prefix)}${more}`;

  it("matches a name prefix with ASCII letters in either case, and every other character only as itself", async () => {
    const w = word();
    const plants: Stored[] = [
      { id: TWO_53 + 1n, name: `${w} Monstera deliciosa` },
      { id: -(TWO_53 + 1n), name: `${w} MONSTERA adansonii`, tag: "indoor" },
      { id: 2n ** 63n - 1n, name: `${w} monstera` },
      { id: -(2n ** 63n), name: `${w} Mon` },
      { id: 7n, name: `${w} Moon` },
      { id: 8n, name: `${w} Édelweiss` },
      { id: 9n, name: `${w} édelweiss` },
      { id: 10n, name: `${w} Ärger` },
      { id: 11n, name: `${w} 100% Fern` },
      { id: 12n, name: `${w} 1000 Fern` },
      { id: 13n, name: `${w} 100_Fern` },
      { id: 14n, name: `${w} a_b` },
      { id: 15n, name: `${w} axb` },
      { id: 16n, name: `${w} \uD7FFa` },
      { id: 17n, name: `${w} \uE000` },
      { id: 18n, name: `${w} \u{10FFFF}\u{10FFFF}x` },
      { id: 19n, name: `${w} 🌿 Fern` },
    ];
    for (const plant of plants) await server.create(plant);
    const named = (...ids: bigint[]) => ids.sort(ascending);
    const found = async (prefix: string) => idsOf((await list(byName(prefix))).plants);

    expect(await found(`${w} mon`)).toEqual(named(-(2n ** 63n), -(TWO_53 + 1n), TWO_53 + 1n, 2n ** 63n - 1n));
    expect(await found(`${w.toUpperCase()} MONSTERA`)).toEqual(named(-(TWO_53 + 1n), TWO_53 + 1n, 2n ** 63n - 1n));
    expect(await found(`${w} monstera d`)).toEqual([TWO_53 + 1n]);
    expect(await found(`${w} Mo`)).toEqual(named(-(2n ** 63n), -(TWO_53 + 1n), 7n, TWO_53 + 1n, 2n ** 63n - 1n));
    // Non-ASCII letters are not folded: É finds É, é finds é.
    expect(await found(`${w} É`)).toEqual([8n]);
    expect(await found(`${w} é`)).toEqual([9n]);
    expect(await found(`${w} ä`)).toEqual([]);
    expect(await found(`${w} Ä`)).toEqual([10n]);
    // % and _ are characters, not wildcards.
    expect(await found(`${w} 100%`)).toEqual([11n]);
    expect(await found(`${w} 100_`)).toEqual([13n]);
    expect(await found(`${w} 100`)).toEqual([11n, 12n, 13n]);
    expect(await found(`${w} a_`)).toEqual([14n]);
    expect(await found(`${w} %`)).toEqual([]);
    expect(await found(`${w} _`)).toEqual([]);
    // The ends of the code point order: the range after U+D7FF skips the surrogates, and a prefix
    // of U+10FFFF alone has no end.
    expect(await found(`${w} \uD7FF`)).toEqual([16n]);
    expect(await found(`${w} \u{10FFFF}`)).toEqual([18n]);
    expect(await found(`${w} \u{10FFFF}\u{10FFFF}`)).toEqual([18n]);
    expect(await found(`${w} 🌿`)).toEqual([19n]);
    // A whole name is a prefix of itself; a longer text is not.
    expect(await found(`${w} monstera`)).toEqual(named(-(TWO_53 + 1n), TWO_53 + 1n, 2n ** 63n - 1n));
    expect(await found(`${w} monsteras`)).toEqual([]);
    // Exact ids above 2^53 in the body.
    const { response } = await list(byName(`${w} monstera d`));
    expect(await response.text()).toBe(`[{"id":${TWO_53 + 1n},"name":"${w} Monstera deliciosa"}]`);
  });

  it("combines the name with the tag, and with the order", async () => {
    const w = word();
    const plants: Stored[] = [
      { id: at(1n), name: `${w} Fern`, tag: "indoor" },
      { id: at(2n), name: `${w} fern`, tag: "outdoor" },
      { id: at(3n), name: `${w} FERN` },
      { id: at(4n), name: `${w} Ficus`, tag: "indoor" },
      { id: at(5n), name: `${w} ferny`, tag: "indoor" },
    ];
    for (const plant of plants) await server.create(plant);
    const found = async (query: string) => idsOf((await list(query)).plants);
    expect(await found(byName(`${w} fern`, "&tag=indoor"))).toEqual([at(1n), at(5n)]);
    expect(await found(byName(`${w} fern`, "&tag=indoor&order=desc"))).toEqual([at(5n), at(1n)]);
    expect(await found(byName(`${w} F`, "&tag=outdoor"))).toEqual([at(2n)]);
    expect(await found(byName(`${w} fern`, "&tag=INDOOR"))).toEqual([]); // the tag stays exact
    expect(await found(byName(`${w} f`, "&order=desc"))).toEqual([at(5n), at(4n), at(3n), at(2n), at(1n)]);
    expect(await found(byName(`${w} f`, "&order=asc"))).toEqual([at(1n), at(2n), at(3n), at(4n), at(5n)]);
  });

  it.each(["asc", "desc"] as const)(
    "pages a name in %s order through its next links, which keep the query (percent-encoded)",
    async (order) => {
      const w = word();
      const name = `${w} a&b=c+d %_é`;
      const plants: Stored[] = [];
      for (let i = 0; i < 23; i++) {
        const id = BigInt(i - 11) * (TWO_53 + 1n) + BigInt(test) * 1000n;
        const asciiUpper = name.replace(/[a-z]+/g, (letters) => letters.toUpperCase()); // É stays é
        plants.push({ id, name: `${i % 2 ? name : asciiUpper} ${i}`, tag: "t" });
      }
      plants.push({ id: at(5n), name: `${w} a&b=c+d %_e` }, { id: at(6n), name: `${w} a&b` }); // not matching
      for (const plant of plants) await server.create(plant);
      const matching = plants.slice(0, 23);
      const query = `/plants?limit=4${order === "desc" ? "&order=desc" : ""}&name=${encodeURIComponent(name)}&count=true`;
      const first = await list(query.slice("/plants".length));
      expect(first.response.headers.get("link")).toBe(
        `</plants?limit=4&after=${sortedIds(matching, order)[3]}${order === "desc" ? "&order=desc" : ""}&name=${encodeURIComponent(name)}&count=true>; rel="next"`,
      );
      const { seen, pages } = await walk(query, order);
      expect(idsOf(seen)).toEqual(sortedIds(matching, order));
      expect(pages).toBe(6);
      const tagged = await walk(
        `/plants?limit=5&order=${order}&tag=t&name=${encodeURIComponent(name.toLowerCase())}`,
        order,
      );
      expect(idsOf(tagged.seen)).toEqual(sortedIds(matching, order));
    },
  );

  it.each(["asc", "desc"] as const)("sorts the whole store by id, %s, pages and tag included", async (order) => {
    const w = word();
    const tag = `${w} tag`;
    const o = BigInt(test) * 1000n;
    const plants: Stored[] = [-(2n ** 63n) + o, -(TWO_53 + 1n) - o, -o, o, at(1n), at(2n), 2n ** 63n - 1n - o].map(
      (id, index) => ({ id, name: `${w} ${index}`, tag }),
    );
    for (const plant of plants) await server.create(plant);
    const { seen } = await walk(`/plants?limit=2&order=${order}&tag=${encodeURIComponent(tag)}`, order);
    expect(idsOf(seen)).toEqual(sortedIds(plants, order));
    // Without order, ascending.
    expect(idsOf((await list(`?tag=${encodeURIComponent(tag)}`)).plants)).toEqual(sortedIds(plants));
    // after is "after in this order".
    const middle = sortedIds(plants, order)[2]!;
    expect(idsOf((await list(`?order=${order}&after=${middle}&tag=${encodeURIComponent(tag)}`)).plants)).toEqual(
      sortedIds(plants, order).slice(3),
    );
  });

  it("counts the matching plants exactly up to 1000, and says >1000 above, on every page", async () => {
    const w = word();
    for (const plant of [
      { id: at(1n), name: `${w} Aloe`, tag: "dry" },
      { id: at(2n), name: `${w} aloe vera` },
      { id: at(3n), name: `${w} Agave`, tag: "dry" },
    ]) {
      await server.create(plant);
    }
    const count = async (query: string) => (await list(query)).response.headers.get(COUNT_HEADER);
    expect(await count(byName(`${w} aloe`, "&count=true"))).toBe("2");
    expect(await count(byName(`${w} a`, "&count=true&tag=dry&limit=1"))).toBe("2");
    expect(await count(byName(`${w} a`, `&count=true&limit=1&after=${at(2n)}&order=desc`))).toBe("3");
    expect(await count(byName(`${w} zzz`, "&count=true"))).toBe("0");
    expect(await count(byName(`${w} aloe`))).toBeNull();
    expect(await count(byName(`${w} aloe`, "&count=false"))).toBeNull();
    const bulk: Stored[] = Array.from({ length: 1001 }, (_, i) => ({
      id: at(1000n + BigInt(i)),
      name: `${w}bulk ${i}`,
    }));
    await insertDirectly(databaseUrl, bulk);
    expect(await count(byName(`${w}bulk`, "&count=true"))).toBe(">1000");
    expect(await count(byName(`${w}bulk 1000`, "&count=true"))).toBe("1");
    await insertDirectly(databaseUrl, [{ id: at(999n), name: `${w}bulk -`, tag: "x" }]);
    expect(await count(byName(`${w}bulk`, "&count=true&tag=x"))).toBe("1");
    expect(await count("?count=true")).toBe(">1000");
    expect(await count("?count=true&tag=dry")).toBe("2");
  });

  it.each([
    ["name=", "name: must not be empty"],
    [`name=${"x".repeat(257)}`, "name: must be at most 256 characters"],
    ["name=a%00", "name: must not contain control characters"],
    ["name=a&name=b", "name: must be given at most once"],
    ["order=up", "order: must be asc or desc"],
    ["order=DESC", "order: must be asc or desc"],
    ["order=", "order: must be asc or desc"],
    ["count=yes", "count: must be true or false"],
    ["count=1", "count: must be true or false"],
    ["sort=desc", "sort: is not a query parameter here"],
  ])("refuses ?%s with a JSON 400 INVALID_PARAMETER", async (query, message) => {
    const body = await expectError(await server.call("GET", `/plants?${query}`), 400, ErrorCode.INVALID_PARAMETER);
    expect(body.message).toContain(message);
  });

  describe("a name many plants have", () => {
    // More plants than the name index's range is read for (so the pages are read in id order, a
    // window at a time): a dense run, a long run of other names, and a few far apart at the end.
    const base = 2n ** 60n;
    let w: string;
    let dense: Stored[];
    let sparse: Stored[];
    beforeAll(async () => {
      w = word();
      dense = Array.from({ length: NAME_RANGE_READ_MAX + 500 }, (_, i) => ({
        id: base + BigInt(i) * 3n,
        name: `${i % 2 ? w : w.toUpperCase()} broad ${i}`,
        ...(i % 5 === 0 ? { tag: "fifth" } : {}),
      }));
      const others = Array.from({ length: NAME_SCAN_WINDOW * 2 + 10 }, (_, i) => ({
        id: base + 1_000_000n + BigInt(i),
        name: `${w} other ${i}`,
      }));
      sparse = [0n, 17n, 400n].map((offset, i) => ({ id: base + 2_000_000n + offset, name: `${w} Broad tail ${i}` }));
      await insertDirectly(databaseUrl, [...dense, ...others, ...sparse]);
    });

    it.each(["asc", "desc"] as const)(
      "visits every plant of the name once in %s order; pages end early where matches are far apart",
      async (order) => {
        const { seen, pages } = await walk(`/plants?limit=1000&order=${order}&name=${w}%20broad`, order);
        expect(idsOf(seen)).toEqual(sortedIds([...dense, ...sparse], order));
        // 5,503 plants in pages of 1000 would be 6 pages; the 20,010 others between the runs add
        // pages that end early (at most a window of plants read each).
        expect(pages).toBeGreaterThan(6);
        expect(pages).toBeLessThan(12);
        const tagged = await walk(`/plants?limit=100&order=${order}&tag=fifth&name=${w}%20BROAD`, order);
        expect(idsOf(tagged.seen)).toEqual(
          sortedIds(
            dense.filter((plant) => plant.tag === "fifth"),
            order,
          ),
        );
      },
    );

    it("sees every plant that exists throughout once while plants are created, in both orders", async () => {
      let next = 0n;
      const created: bigint[] = [];
      for (const order of ["asc", "desc"] as const) {
        let creating = true;
        // Creates of the name (and of others) land all over the dense run while the walk goes on:
        // ids 1 more than a multiple of 3 (the run's are multiples), below the other names' ids.
        const creator = (async () => {
          while (creating) {
            const id = base + 1n + 3n * ((next++ * 331n) % 330_000n);
            created.push(id);
            await server.create({ id, name: `${next % 2n ? w : "other"} broad new ${order} ${id}` });
          }
        })();
        try {
          const { seen } = await walk(`/plants?limit=250&order=${order}&name=${w}%20broad`, order);
          const ids = idsOf(seen);
          expect(new Set(ids).size).toBe(ids.length); // no plant twice
          const seenIds = new Set(ids);
          for (const plant of [...dense, ...sparse]) expect(seenIds.has(plant.id)).toBe(true); // no gap
          for (const id of ids) {
            expect(
              dense.some((plant) => plant.id === id) || sparse.some((plant) => plant.id === id) || created.includes(id),
            ).toBe(true);
          }
        } finally {
          creating = false;
          await creator;
        }
        expect(created.length).toBeGreaterThan(0);
      }
    });

    it("reads a narrow name through the name indexes, a broad one through a bounded window in id order", async () => {
      const plan = (build: (dialect: Dialect) => string) => planOf(databaseUrl, build);
      const narrow = { name: `${w} broad 123`, limit: 101 };
      const narrowTagged = { ...narrow, tag: "fifth" };
      if (backend.name === "sqlite") {
        expect(await plan((d) => pageSql(d, narrow))).toMatch(
          /USING INDEX plants_name_prefix \(<expr>>\? AND <expr><\?\)/,
        );
        expect(await plan((d) => pageSql(d, { ...narrow, after: base + 10_000_000n, order: "desc" }))).toMatch(
          /USING INDEX plants_name_prefix \(<expr>>\? AND <expr><\?\)/,
        );
        expect(await plan((d) => pageSql(d, narrowTagged))).toMatch(
          /USING INDEX plants_tag_name_prefix \(tag=\? AND <expr>>\? AND <expr><\?\)/,
        );
        expect(await plan((d) => countSql(d, narrow, 1001))).toMatch(/USING COVERING INDEX plants_name_prefix/);
        expect(await plan((d) => countSql(d, narrowTagged, 1001))).toMatch(
          /USING COVERING INDEX plants_tag_name_prefix/,
        );
        expect(await plan((d) => scanSql(d, { ...narrow, after: base }, NAME_SCAN_WINDOW))).toMatch(
          /SEARCH plants USING INTEGER PRIMARY KEY \(rowid>\?\)/,
        );
        expect(await plan((d) => scanSql(d, { ...narrowTagged, order: "desc" }, NAME_SCAN_WINDOW))).toMatch(
          /SEARCH plants USING INDEX plants_tag_id \(tag=\?\)/,
        );
      } else {
        // An index scan, index-only scan or bitmap scan of the index: the planner's choice by its statistics.
        const uses = (index: string) => new RegExp(`Scan (using|on) ${index} `);
        expect(await plan((d) => pageSql(d, narrow))).toMatch(uses("plants_name_prefix"));
        expect(await plan((d) => pageSql(d, { ...narrow, after: base + 10_000_000n, order: "desc" }))).toMatch(
          uses("plants_name_prefix"),
        );
        // With a tag too, either name index serves (the planner may filter the few by tag).
        expect(await plan((d) => pageSql(d, narrowTagged))).toMatch(uses("plants_(tag_)?name_prefix"));
        expect(await plan((d) => countSql(d, narrow, 1001))).toMatch(uses("plants_name_prefix"));
        expect(await plan((d) => countSql(d, narrowTagged, 1001))).toMatch(uses("plants_(tag_)?name_prefix"));
        expect(await plan((d) => scanSql(d, { ...narrow, after: base }, NAME_SCAN_WINDOW))).toMatch(
          /Index Scan using plants_pkey/,
        );
        expect(await plan((d) => scanSql(d, { ...narrowTagged, order: "desc" }, NAME_SCAN_WINDOW))).toMatch(
          uses("plants_tag_id"),
        );
      }
    });
  });
});
