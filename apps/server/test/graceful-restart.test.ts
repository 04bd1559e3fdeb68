import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import {
  killSpawnedServers,
  spawnServer,
  stringify,
  TOKEN,
  waitForOutput,
  type ServerProcess,
} from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

/**
 * What a client got for one request: an answer; a refusal before anything was sent (the server no
 * longer listens); or a socket error on a connection that carried earlier answers — the client cannot
 * tell whether its PUT happened. The last must never happen in a graceful restart.
 */
type Outcome =
  | { kind: "answered"; status: number; headers: IncomingHttpHeaders }
  | { kind: "refused" }
  | { kind: "cut"; reusedSocket: boolean; message: string };

function put(agent: Agent, url: string, id: number, name: string): Promise<Outcome> {
  const body = stringify({ name });
  return new Promise((resolve) => {
    const req = request(`${url}/plants/${id}`, {
      agent,
      method: "PUT",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": body.length },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ kind: "answered", status: res.statusCode!, headers: res.headers }));
      res.on("error", (error) => resolve({ kind: "cut", reusedSocket: req.reusedSocket, message: error.message }));
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      // ECONNREFUSED: nothing was sent. A fresh connection reset before the server accepted it
      // (it stopped listening with the connection still in its backlog): the request was never read.
      if (error.code === "ECONNREFUSED" || (!req.reusedSocket && error.code === "ECONNRESET"))
        resolve({ kind: "refused" });
      else resolve({ kind: "cut", reusedSocket: req.reusedSocket, message: `${error.code}: ${error.message}` });
    });
    req.end(body);
  });
}

async function createPlants(url: string, count: number): Promise<void> {
  for (let id = 1; id <= count; id++) {
    const response = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: stringify({ id, name: `plant ${id}` }),
    });
    expect(response.status).toBe(200);
  }
}

/** A PUT whose body is held back until `release`: the server holds it in flight meanwhile. */
function heldPut(agent: Agent, url: string, id: number) {
  const body = stringify({ name: "held" });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: () => void = () => {};
  const holding = new Promise<void>((resolve) => (held = resolve));
  const outcome = new Promise<Outcome>((resolve) => {
    const req = request(`${url}/plants/${id}`, {
      agent,
      method: "PUT",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        "content-length": body.length,
        expect: "100-continue",
      },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ kind: "answered", status: res.statusCode!, headers: res.headers }));
    });
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ kind: "cut", reusedSocket: req.reusedSocket, message: `${error.code}: ${error.message}` }),
    );
    // `Expect: 100-continue` tells when the server holds the request (its handler has begun).
    req.once("continue", () => {
      req.write(body.slice(0, 5));
      held();
      void released.then(() => req.end(body.slice(5)));
    });
  });
  return { holding, release, outcome };
}

function summary(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = outcome.kind === "answered" ? `answered ${outcome.status}` : outcome.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function stopUnderLoad(server: ServerProcess, clients: number, plants: number) {
  const agents = Array.from({ length: clients }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  // Requests in flight when the signal arrives, answered after it.
  const held = agents.slice(0, 4).map((agent, i) => heldPut(agent, server.url, i + 1));
  await Promise.all(held.map((request) => request.holding));

  // Keep-alive clients that reuse their connection as fast as the answers come, until refused.
  const outcomes: Outcome[] = [];
  let answered = 0;
  const loops = agents.slice(4).map(async (agent, client) => {
    for (let round = 0; ; round++) {
      const outcome = await put(agent, server.url, 1 + ((client + round) % plants), `round ${round}`);
      outcomes.push(outcome);
      if (outcome.kind === "answered") answered++;
      else return;
    }
  });
  await waitFor("the clients to be under way", () => answered >= 40);
  server.child.kill("SIGTERM");
  await waitForOutput(server, /"msg":"shutting down"/);
  for (const request of held) request.release();
  // A keep-alive client reuses the held requests' connections at once, unless told to close them.
  const afterHeld = await Promise.all(
    held.map(async (request, i) => [await request.outcome, await put(agents[i]!, server.url, i + 1, "again")]),
  );
  await Promise.all(loops);
  for (const agent of agents) agent.destroy();
  return { held: afterHeld.map(([first]) => first!), again: afterHeld.map(([, second]) => second!), outcomes };
}

describe("a graceful restart under keep-alive clients", () => {
  it("answers every request it read, with Connection: close once shutdown began, and cuts none", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    await createPlants(server.url, 8);
    const { held, again, outcomes } = await stopUnderLoad(server, 12, 8);

    // The held requests were answered after the signal: each says the connection closes.
    expect(held.map((outcome) => outcome.kind === "answered" && [outcome.status, outcome.headers.connection])).toEqual(
      Array(4).fill([200, "close"]),
    );
    // So their clients opened new connections, which the stopped server refused: nothing was sent.
    expect(summary(again)).toEqual({ refused: 4 });
    // Every other request got an answer, or was refused before it was sent: none was cut.
    const cut = outcomes.filter((outcome) => outcome.kind === "cut");
    expect(cut).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.kind === "answered" && outcome.status !== 200)).toEqual([]);
    expect(await server.exited).toBe(0);
  });

  it("logs a request cut at the shutdown deadline as unanswered, not as a 200", async () => {
    const server = await spawnServer({
      DATABASE_URL: await backend.freshDatabaseUrl(),
      PLANTSTORE_SHUTDOWN_TIMEOUT_MS: "300",
    });
    await createPlants(server.url, 1);
    const agent = new Agent({ keepAlive: true });
    const request = heldPut(agent, server.url, 1);
    await request.holding;
    server.child.kill("SIGTERM");
    // Never released: the deadline cuts it.
    const outcome = await request.outcome;
    agent.destroy();
    expect(outcome.kind).toBe("cut");
    expect(await server.exited).toBe(1);
    const line = /\{[^\n]*"operation":"updatePlant"[^\n]*"msg":"request"\}/.exec(server.stdout());
    expect(line).not.toBeNull();
    const logged = JSON.parse(line![0]) as Record<string, unknown>;
    expect(logged).toMatchObject({ method: "PUT", path: "/plants/1", aborted: "cut at the shutdown deadline" });
    expect(logged).not.toHaveProperty("status");
  });
});
