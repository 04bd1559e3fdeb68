import { parseExactJson, stringifyExactJson } from "@plantstore/contract";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, afterEach, expect, it } from "vitest";
import { openStream, type OpenStream, type StreamEvent } from "../src/test-support/change-stream.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import {
  killSpawnedServers,
  spawnServer,
  startTestServer,
  TOKEN,
  type TestServer,
} from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * The change stream across instances on one PostgreSQL: what a subscriber receives is exactly the
 * log, in commit order, however the writers' transactions interleave, and a subscriber whose
 * instance dies resumes on another with nothing lost or repeated.
 */
const target = await postgresTestTarget();
const TWO_53 = 2n ** 53n;

type Plant = { id: bigint; name: string; tag?: string };

/** Applies the stream's events in order: what the table must hold afterwards. */
function replay(events: readonly StreamEvent[]): Map<bigint, Plant> {
  const plants = new Map<bigint, Plant>();
  for (const event of events) {
    const { type, data } = parseExactJson(event.data!) as { type: string; data: Plant };
    if (type === "plant.deleted") plants.delete(data.id);
    else plants.set(data.id, data);
  }
  return plants;
}

/** The events' ids are 1, 2, 3, … (no gap, no duplicate) and each event's sequence is its id. */
function expectContiguous(events: readonly StreamEvent[], through: bigint): void {
  expect(events.map((event) => event.id)).toEqual(Array.from({ length: Number(through) }, (_, i) => String(i + 1)));
  for (const event of events) expect((parseExactJson(event.data!) as { sequence: string }).sequence).toBe(event.id);
}

async function tableOf(server: { url: string }): Promise<Map<bigint, Plant>> {
  const plants = new Map<bigint, Plant>();
  let after: bigint | undefined;
  for (;;) {
    const response = await fetch(`${server.url}/plants?limit=1000${after === undefined ? "" : `&after=${after}`}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const page = parseExactJson(await response.text()) as Plant[];
    for (const plant of page) plants.set(plant.id, plant);
    if (page.length < 1000) return plants;
    after = page[page.length - 1]!.id;
  }
}

const write = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : stringifyExactJson(body),
  }).then((response) => response.status);

/** Creates, edits and deletes on overlapping ids, `rounds` times, alternating between `urls`. */
async function churn(urls: readonly string[], writer: number, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const id = TWO_53 + BigInt(round % 7) * 1_000_003n;
    const url = urls[(round + writer) % urls.length]!;
    await Promise.all([
      write(url, "POST", "/plants", { id, name: `w${writer} r${round}`, tag: "x" }),
      write(url, "PUT", `/plants/${id}`, { name: `w${writer} edit ${round}` }),
      write(url, "POST", "/plants", { id: id + BigInt(writer + 1), name: `w${writer} ${round}` }),
      round % 3 === 2 ? write(url, "DELETE", `/plants/${id}`) : Promise.resolve(0),
    ]);
  }
}

describeWith(target, "the change stream on PostgreSQL with several instances", (url) => {
  const schemas: TestSchema[] = [];
  const servers: TestServer[] = [];
  const streams: OpenStream[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    for (const server of servers.splice(0)) await server.close();
    killSpawnedServers();
  });
  afterAll(async () => {
    for (const schema of schemas.splice(0)) await schema.drop();
  });

  it(
    "concurrent writers on two instances, a subscriber on a third: the stream is the log, in order, and replays to the table",
    { timeout: 240_000 },
    async () => {
      const schema = await createTestSchema(url);
      schemas.push(schema);
      for (let i = 0; i < 3; i++) servers.push(await startTestServer({ databaseUrl: schema.url, changesPollMs: 50 }));
      const [a, b, c] = servers as [TestServer, TestServer, TestServer];
      const stream = await openStream(c.url, { after: "0" });
      streams.push(stream);

      await Promise.all([0, 1, 2, 3].map((writer) => churn([a.url, b.url], writer, 12)));
      const { last } = await c.storage.changes.bounds();
      expect(last).toBeGreaterThan(50n);
      await waitFor("the stream to reach the newest change", () => stream.events.at(-1)?.id === String(last), {
        timeoutMs: 120_000,
      });

      expectContiguous(stream.events, last);
      const log = await c.storage.changes.after(0n, Number(last) + 10);
      expect(stream.events.map((event) => event.data)).toEqual(log.map((change) => change.body));
      expect(replay(stream.events)).toEqual(await tableOf(a));
    },
  );

  it(
    "kill -9 of the subscriber's instance: it resumes on another with nothing lost or repeated",
    { timeout: 240_000 },
    async () => {
      const schema = await createTestSchema(url);
      schemas.push(schema);
      const [first, second] = await Promise.all([0, 1].map(() => spawnServer({ DATABASE_URL: schema.url })));
      const stream = await openStream(first!.url, { after: "0" });
      streams.push(stream);
      let writing = true;
      const writers = [0, 1].map(async (writer) => {
        for (let round = 0; writing; round++) await churn([second!.url], writer, 1 + (round % 2));
      });
      await waitFor("some changes at the subscriber", () => stream.events.length >= 10);
      first!.child.kill("SIGKILL");
      await stream.ended;
      const resumedFrom = stream.events.at(-1)!.id!;
      const resumed = await openStream(second!.url, { lastEventId: resumedFrom });
      streams.push(resumed);
      await waitFor("changes after the resume", () => resumed.events.length >= 10);
      writing = false;
      await Promise.all(writers);
      const last = (await fetchLast(second!.url)) as string;
      await waitFor("the resumed stream to reach the newest change", () => resumed.events.at(-1)?.id === last);

      const events = [...stream.events, ...resumed.events];
      expectContiguous(events, BigInt(last));
      expect(replay(events)).toEqual(await tableOf(second!));
    },
  );
});

/** The newest cursor, as a stream without a cursor starts from it. */
async function fetchLast(baseUrl: string): Promise<string | undefined> {
  const stream = await openStream(baseUrl);
  await waitFor("the starting block", () => stream.start);
  stream.close();
  return stream.start;
}
