import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStream, type OpenStream } from "../src/test-support/change-stream.js";
import { testBackends } from "../src/test-support/databases.js";
import { parsePrometheusText, sampleValue } from "../src/test-support/prometheus-text.js";
import {
  killSpawnedServers,
  spawnServer,
  startTestServer,
  stringify,
  TOKEN,
  type ServerProcess,
  type TestServer,
} from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * The change stream under load: a subscriber that stops reading costs the server a bounded amount
 * of memory (its stream is ended, and it resumes from its cursor with nothing lost or repeated), and
 * one instance holds 1,000 open streams in a few tens of KiB each.
 */

const TWO_53 = 2n ** 53n;
/** The smallest buffer the configuration allows (PLANTSTORE_CHANGES_BUFFER_BYTES, 16384 … 67108864). */
const BUFFER_BYTES = 16 * 1024;
/** Creates committed at once per round (the writer batches them into a few commits). */
const ROUND = 50;
/**
 * Where the slow-subscriber test gives up: the paused stream must have been ended well before the
 * server was handed this many events for it (the kernel's socket buffers on loopback take a few MB
 * before Node holds any unsent byte, ~4 MB here; these are ~1.5 KB each, so ~30 MB).
 */
const MAX_CHANGES = 20_000;
const STREAMS = 1_000;

async function scrape(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return sampleValue(parsePrometheusText(await response.text()), name, labels);
}

/**
 * The largest plant the contract allows, in bytes: a name of 256 and a tag of 64 characters (code
 * points), each 4 bytes in UTF-8 after a short ASCII prefix, so that few changes fill the buffers.
 */
const bigPlant = (i: number) => {
  const prefix = `plant ${i} `;
  return { id: TWO_53 + BigInt(i), name: prefix + "🌿".repeat(256 - prefix.length), tag: "🌱".repeat(64) };
};

/** The ids and the data of the events, in order (what must be equal across streams). */
const idsAndData = (events: OpenStream["events"]) => events.map((event) => [event.id, event.data]);

describe.each(testBackends())("change streams under load on $name", (backend) => {
  let server: TestServer;
  const streams: OpenStream[] = [];
  const open = async (options: Parameters<typeof openStream>[1]) => {
    const stream = await openStream(server.url, options);
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl(), changesBufferBytes: BUFFER_BYTES });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  it(
    "a slow subscriber never grows the server's memory without bound (its stream ends; it resumes from its cursor)",
    { timeout: 300_000 },
    async () => {
      const control = await open({});
      const start = await waitFor("the control stream's starting block", () => control.start);
      // Never read (until the server ended it): a subscriber that stopped reading.
      const slow = await open({ after: start, paused: true });
      await waitFor("both streams open", async () => (await scrape(server.url, "plantstore_change_streams")) === 2);
      const slowEnded = async () =>
        (await scrape(server.url, "plantstore_change_streams_ended_total", { reason: "slow" })) >= 1;

      // Commit until the server ends the slow stream: its unsent bytes pass BUFFER_BYTES once the
      // kernel's socket buffers are full. Bounded: a server that held the stream would fail here.
      let committed = 0;
      while (!(await slowEnded())) {
        if (committed >= MAX_CHANGES) {
          throw new Error(`the stream that never read was not ended after ${committed} changes were committed`);
        }
        await Promise.all(Array.from({ length: ROUND }, (_, i) => server.create(bigPlant(committed + i))));
        committed += ROUND;
        // The control reads: it keeps up whatever the rounds (it never holds the server back).
        await waitFor(`the control stream to receive ${committed} changes`, () => control.events.length >= committed);
      }
      const endedWithin = committed;
      // One more round after the end: the reading stream goes on, the ended one is gone.
      await Promise.all(Array.from({ length: ROUND }, (_, i) => server.create(bigPlant(committed + i))));
      committed += ROUND;
      await waitFor(`the control stream to receive ${committed} changes`, () => control.events.length >= committed);

      // The client reads at last: what its kernel held, then the end the server sent.
      slow.resume();
      await waitFor("the slow stream to see the server's end", () => slow.isEnded());
      expect(await scrape(server.url, "plantstore_change_streams_ended_total", { reason: "slow" })).toBe(1);
      expect(await scrape(server.url, "plantstore_change_streams")).toBe(1);
      expect(control.isEnded()).toBe(false);

      // The control received every change, in order, each once: positions start+1 … start+committed.
      const first = BigInt(start) + 1n;
      expect(control.events.map((event) => event.id)).toEqual(
        Array.from({ length: committed }, (_, i) => String(first + BigInt(i))),
      );
      // The slow stream received a prefix of them (whole events only), and not all.
      expect(slow.events.length).toBeLessThan(committed);
      expect(idsAndData(slow.events)).toEqual(idsAndData(control.events.slice(0, slow.events.length)));

      // It resumes from the last event it received (from where it started, if none): exactly the rest.
      const cursor = slow.events.at(-1)?.id ?? start;
      const resumed = await open({ lastEventId: cursor });
      const rest = committed - slow.events.length;
      await waitFor(`the resumed stream to receive ${rest} changes`, () => resumed.events.length >= rest);
      // One more change: a duplicate anywhere in the resumed stream would come before it.
      await server.create(bigPlant(committed));
      committed += 1;
      await waitFor("the last change on both streams", () =>
        [control, resumed].every((stream) => stream.events.at(-1)?.id === String(first + BigInt(committed - 1))),
      );
      expect(idsAndData([...slow.events, ...resumed.events])).toEqual(idsAndData(control.events));

      const bytes = (events: OpenStream["events"]) =>
        events.reduce((sum, e) => sum + Buffer.byteLength(`event: ${e.event}\ndata: ${e.data}\nid: ${e.id}\n\n`), 0);
      const KiB = (events: OpenStream["events"]) => `${Math.round(bytes(events) / 1024)} KiB`;
      console.info(
        `${backend.name}: the stream that never read was ended (slow) within ${endedWithin} changes ` +
          `(${KiB(control.events.slice(0, endedWithin))}, buffer ${BUFFER_BYTES / 1024} KiB); ` +
          `it had been sent ${slow.events.length} whole events (${KiB(slow.events)}: its sockets' kernel buffers ` +
          `held them), and resumed from ${cursor} with exactly the other ${rest}`,
      );
    },
  );
});

/** The resident set of a process (VmRSS in /proc/<pid>/status), in bytes. */
function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

describe.each(testBackends())("1,000 change streams on one instance on $name", (backend) => {
  const streams: OpenStream[] = [];
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
    killSpawnedServers();
  });
  afterAll(async () => {
    await backend.cleanup();
  });

  it(
    "1,000 concurrent streams on one instance, memory measured",
    // A spawned server's start took up to 40 s with both cores busy (docs/testing.md).
    { timeout: 300_000 },
    async () => {
      // A separate process, so that its memory is its own. 1,000 streams plus the test's own
      // requests are more than the default cap of 1,000 connections.
      const spawned: ServerProcess = await spawnServer({
        DATABASE_URL: await backend.freshDatabaseUrl(),
        PLANTSTORE_MAX_CONNECTIONS: String(STREAMS + 100),
      });
      const { url } = spawned;
      const pid = spawned.child.pid!;
      const create = async (id: bigint, name: string) => {
        const response = await fetch(`${url}/plants`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: stringify({ id, name }),
        });
        expect(response.status).toBe(200);
      };

      // Warm up what the first stream and the first change load once (not per stream).
      const warm = await openStream(url, {});
      streams.push(warm);
      await waitFor("the warm-up stream's starting block", () => warm.start);
      await create(TWO_53, "warm-up");
      await waitFor("the warm-up change", () => warm.events.length === 1);
      warm.close();
      await waitFor("the warm-up stream closed", async () => (await scrape(url, "plantstore_change_streams")) === 0);
      const idle = rssOf(pid);

      // Opened 100 at a time (a listen backlog of 511 drops a burst of 1,000 SYNs, retried a second later).
      const opened = performance.now();
      const subscribers: OpenStream[] = [];
      for (let batch = 0; batch < STREAMS; batch += 100) {
        const next = await Promise.all(Array.from({ length: 100 }, () => openStream(url, {})));
        streams.push(...next);
        subscribers.push(...next);
      }
      await waitFor(`${STREAMS} starting blocks`, () => subscribers.every((stream) => stream.start !== undefined));
      const openMs = performance.now() - opened;
      expect(subscribers.map((stream) => stream.status)).toEqual(Array(STREAMS).fill(200));
      expect(await scrape(url, "plantstore_change_streams")).toBe(STREAMS);
      const open = rssOf(pid);

      const committed = performance.now();
      await create(TWO_53 + 1n, "to every stream");
      const answered = performance.now();
      await waitFor(`the change on all ${STREAMS} streams`, () =>
        subscribers.every((stream) => stream.events.length === 1),
      );
      const receivedMs = performance.now() - committed;
      const afterChange = rssOf(pid);
      const position = subscribers[0]!.events[0]!.id;
      expect(subscribers.every((stream) => stream.events[0]!.id === position && !stream.isEnded())).toBe(true);
      expect(await scrape(url, "plantstore_change_streams")).toBe(STREAMS);
      expect(await scrape(url, "plantstore_change_stream_events_total")).toBe(STREAMS + 1);

      const perStream = (open - idle) / STREAMS;
      const KiB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
      console.info(
        `${backend.name}: server RSS idle ${KiB(idle)}, with ${STREAMS} streams open ${KiB(open)} ` +
          `(${KiB(perStream)} per stream), after one change to all ${KiB(afterChange)}; ` +
          `${STREAMS} streams opened in ${Math.round(openMs)} ms; the change reached all ${STREAMS} ` +
          `${Math.round(receivedMs)} ms after its POST was sent (${Math.round(answered - committed)} ms to its answer)`,
      );
      // Generous (measured ~42 KiB): a stream that held a page, a buffer or a read of its own would pass it.
      expect(perStream).toBeLessThan(256 * 1024);
      expect((afterChange - idle) / STREAMS).toBeLessThan(256 * 1024);
    },
  );
});
