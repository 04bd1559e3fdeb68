import { deprecation, plantStoreContract, type PlantStoreContract } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";

/**
 * Nothing in today's API is deprecated, so the real server serves a fixture: Plant Store's contract
 * with two operations marked deprecated in their route metadata (the handlers are Plant Store's).
 * The headers come from that metadata through the real HTTP pipeline.
 */
const fixture: PlantStoreContract = {
  ...plantStoreContract,
  getPlant: {
    ...plantStoreContract.getPlant,
    metadata: {
      scope: "plants:read",
      deprecated: deprecation({ since: "2026-12-01", sunset: "2027-06-01", replacement: "GET /plants?id=" }),
    },
  },
  listPlants: {
    ...plantStoreContract.listPlants,
    metadata: {
      scope: "plants:read",
      deprecated: deprecation({
        since: "2026-12-01",
        replacement: "GET /plants/changes",
        link: "https://example.com/why",
      }),
    },
  },
};

const backend = sqliteBackend();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() }, { contract: fixture });
});
afterAll(async () => {
  await server?.close();
  await backend.cleanup();
});

describe("a deprecated operation", () => {
  it("answers Deprecation (RFC 9745), Sunset (RFC 8594) and a deprecation Link, whatever the status", async () => {
    await server.create({ id: 7, name: "Fern" });
    const answers = [
      await server.call("GET", "/plants/7"),
      await server.call("GET", "/plants/8"), // 404
      await fetch(`${server.url}/plants/7`), // no token: refused 401 before any handler
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401]);
    for (const answer of answers) {
      expect(answer.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
      expect(answer.headers.get("sunset")).toBe("Tue, 01 Jun 2027 00:00:00 GMT");
      expect(answer.headers.get("link")).toBe('</docs#/plants/getPlant>; rel="deprecation"');
    }
  });

  it("has no Sunset when no removal day is set, and keeps its own Link beside the deprecation one", async () => {
    await server.create({ id: 1, name: "Aloe" });
    await server.create({ id: 2, name: "Basil" });
    const page = await server.call("GET", "/plants?limit=1");
    expect(page.status).toBe(200);
    expect(page.headers.get("deprecation")).toBe("@1796083200");
    expect(page.headers.get("sunset")).toBeNull();
    expect(page.headers.get("link")).toBe(
      '<https://example.com/why>; rel="deprecation", </plants?limit=1&after=1>; rel="next"',
    );
  });

  it("leaves the operations that are not deprecated as they were", async () => {
    const answer = await server.post({ id: 3, name: "Cactus" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("deprecation")).toBeNull();
    expect(answer.headers.get("sunset")).toBeNull();
    expect(answer.headers.get("link")).toBeNull();
  });
});
