import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScenarioName } from "./scenarios.js";
import { wrk } from "./test-support/wrk.js";
import { parseWrkOutput, runWrk } from "./wrk.js";

interface Seen {
  id: number;
  name: string;
  authorization: string | undefined;
}

// A recording server: the test reads what the wrk script really sent.
let seen: Seen[] = [];
let server: Server;
let url: string;

async function load(scenario: ScenarioName, idBase = 2 ** 36) {
  seen = [];
  const result = await runWrk({
    url,
    scenario,
    token: "secret",
    idBase,
    poolSize: 10,
    connections: 4,
    threads: 2,
    durationSeconds: 1,
    cpu: undefined,
  });
  return result;
}

describeWith(wrk, "the wrk script (plants.lua)", () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      req.on("end", () => {
        const body = JSON.parse(text) as { id: number; name: string };
        seen.push({ id: body.id, name: body.name, authorization: req.headers.authorization });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends a new id with every create, unique across wrk threads, and counts the statuses", async () => {
    const result = await load("create");
    const ids = seen.map((request) => request.id);
    expect(ids.length).toBeGreaterThan(100);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 2 ** 36)).toBe(true);
    // Two threads: ids come from two disjoint ranges 2^30 apart.
    expect(new Set(ids.map((id) => Math.floor((id - 2 ** 36) / 2 ** 30))).size).toBe(2);
    expect(result.statuses["200"]).toBe(result.requests);
    expect(seen.every((request) => request.authorization === "Bearer secret")).toBe(true);
  });

  it("replays only pool ids with the pool's body", async () => {
    await load("replay");
    expect(seen.every((request) => request.id <= -1 && request.id >= -10)).toBe(true);
    expect(new Set(seen.map((request) => request.name))).toEqual(new Set(["Monstera deliciosa"]));
  });

  it("sends every other request to a pool id under another name", async () => {
    await load("conflict");
    const conflicts = seen.filter((request) => request.id < 0);
    expect(conflicts.every((request) => request.name === "Ficus lyrata" && request.id >= -10)).toBe(true);
    expect(conflicts.length / seen.length).toBeCloseTo(0.5, 1);
  });

  it("sends a wrong bearer token in the unauth scenario", async () => {
    await load("unauth");
    expect(seen.every((request) => request.authorization === "Bearer wrong-secret")).toBe(true);
  });
});

describe("parseWrkOutput", () => {
  it("reads the result line among wrk's own output", () => {
    const result = parseWrkOutput(
      'Running 1s test\nWRK_RESULT {"requests":3,"durationUs":1000000,"p50Us":10,"p99Us":20,"maxUs":30,"errors":{"connect":0,"read":0,"write":0,"timeout":0},"statuses":{"200":3}}\n',
    );
    expect(result).toMatchObject({ requests: 3, p99Us: 20, statuses: { "200": 3 } });
  });
  it("says what wrk printed when there is no result line", () => {
    expect(() => parseWrkOutput("unable to connect")).toThrow(
      "wrk printed no result line; its output was:\nunable to connect",
    );
  });
});
