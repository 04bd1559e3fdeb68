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

/** Requests each run waits for: enough that every share the tests check holds within a few percent. */
const ENOUGH = 200;

/** Only an upper bound for a hung run; a run ends on its count, long before this on any machine. */
const RUN_BOUND_SECONDS = 100;
const TEST_TIMEOUT_MS = (RUN_BOUND_SECONDS + 20) * 1000;

/** The thread a new id came from: ids of wrk thread t start at 2^36 + t * 2^30. */
const threadOf = (id: number) => Math.floor((id - 2 ** 36) / 2 ** 30);

/**
 * One wrk run against the recording server, ended (SIGINT; wrk still prints its result) once the server
 * has seen `enough(seen)`: a count, not a time, so a busy machine makes the run slower, never smaller.
 * The duration is only an upper bound.
 */
async function load(scenario: ScenarioName, enough = (requests: Seen[]) => requests.length >= ENOUGH) {
  seen = [];
  const stop = new AbortController();
  condition = () => {
    if (enough(seen)) stop.abort();
  };
  const result = await runWrk({
    url,
    scenario,
    token: "secret",
    idBase: 2 ** 36,
    poolSize: 10,
    connections: 4,
    threads: 2,
    durationSeconds: RUN_BOUND_SECONDS,
    stop: stop.signal,
    cpu: undefined,
  });
  expect(stop.signal.aborted, "wrk ran its whole duration before the server had seen enough requests").toBe(true);
  // wrk has exited; once the server has closed all its connections it has read every request wrk sent,
  // so none of this run's requests lands in the next run's `seen`.
  while ((await new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)))) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return result;
}

/** Checked after every recorded request. */
let condition = () => {};

describeWith(wrk, "the wrk script (plants.lua)", () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      req.on("end", () => {
        const body = JSON.parse(text) as { id: number; name: string };
        seen.push({ id: body.id, name: body.name, authorization: req.headers.authorization });
        condition();
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(
    "sends a new id with every create, unique across wrk threads, and counts the statuses",
    async () => {
      // Both threads must have had their turn: a busy machine may start one long after the other.
      const result = await load(
        "create",
        (requests) => requests.length >= ENOUGH && new Set(requests.map((request) => threadOf(request.id))).size >= 2,
      );
      const ids = seen.map((request) => request.id);
      expect(ids.length).toBeGreaterThanOrEqual(ENOUGH);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.every((id) => Number.isSafeInteger(id) && id > 2 ** 36)).toBe(true);
      // Two threads: ids come from two disjoint ranges 2^30 apart.
      expect(new Set(ids.map(threadOf)).size).toBe(2);
      expect(result.statuses["200"]).toBe(result.requests);
      expect(seen.every((request) => request.authorization === "Bearer secret")).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "replays only pool ids with the pool's body",
    async () => {
      await load("replay");
      expect(seen.every((request) => request.id <= -1 && request.id >= -10)).toBe(true);
      expect(new Set(seen.map((request) => request.name))).toEqual(new Set(["Monstera deliciosa"]));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "sends every other request to a pool id under another name",
    async () => {
      await load("conflict");
      const conflicts = seen.filter((request) => request.id < 0);
      expect(conflicts.every((request) => request.name === "Ficus lyrata" && request.id >= -10)).toBe(true);
      expect(conflicts.length / seen.length).toBeCloseTo(0.5, 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "sends a wrong bearer token in the unauth scenario",
    async () => {
      await load("unauth");
      expect(seen.every((request) => request.authorization === "Bearer wrong-secret")).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
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
