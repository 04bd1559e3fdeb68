import { connect, type Socket } from "node:net";
import { postPlant } from "./probe.js";

/**
 * Live subscribers for the subscribers target (issue 39): change streams (GET /plants/changes) held
 * open by the bench while wrk creates, each read to its end as a client would, and a probe that
 * times a create's 200 to its event at a subscriber.
 *
 * The streams only count their bytes (parsing 100 copies of every event would make the bench
 * process, on wrk's core, the bottleneck); the watcher stream, one of them, also looks for the
 * probe's plant. A stream the server ends (a `slow` cut, a restart) is opened again from now and
 * counted: a run with reopened streams is no longer the load it says it is.
 */
export interface Subscribers {
  /** Bytes received over every stream. */
  bytes(): number;
  /** Streams the server ended and the bench opened again. */
  reopened(): number;
  /** Creates one plant (id `id`), resolves with ms from its 200 to its event on the watcher (at least 0). */
  timeOneCreate(id: bigint): Promise<number>;
  close(): void;
}

const EVENT_TIMEOUT_MS = 10_000;

export async function openSubscribers(url: string, token: string, count: number): Promise<Subscribers> {
  let bytes = 0;
  let reopened = 0;
  let closed = false;
  const sockets = new Set<Socket>();
  /** The watcher's pending look: the marker it waits for, and what to call when it sees it. */
  let looking: { marker: string; seen: (at: number) => void } | undefined;
  let tail = "";

  const { hostname, port } = new URL(url);
  const head =
    `GET /plants/changes HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
    "Accept: text/event-stream\r\n\r\n";
  // Raw sockets, not node:http: the bench reads ~100× the events the server commits, on wrk's core,
  // and HTTP parsing there would slow wrk down and make the server look slower than it is.
  const open = (watcher: boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      sockets.add(socket);
      let answered = false;
      socket.on("error", (error) => (answered || closed ? undefined : reject(error)));
      socket.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (!answered) {
          answered = true;
          if (!chunk.toString("latin1", 0, 12).startsWith("HTTP/1.1 200")) {
            reject(new Error(`GET /plants/changes answered ${chunk.toString("latin1", 0, 80)}`));
            socket.destroy();
            return;
          }
          resolve();
        }
        if (!watcher || looking === undefined) return;
        // The marker may straddle two reads: look in the previous read's tail and this one.
        const text = tail + chunk.toString("latin1");
        if (text.includes(looking.marker)) {
          looking.seen(performance.now());
          looking = undefined;
        }
        tail = text.slice(-64);
      });
      socket.on("close", () => {
        sockets.delete(socket);
        if (closed || !answered) return;
        reopened++;
        void open(watcher).catch(() => undefined);
      });
      socket.write(head);
    });

  await open(true);
  for (let started = 1; started < count; started += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - started) }, () => open(false)));
  }
  return {
    bytes: () => bytes,
    reopened: () => reopened,
    async timeOneCreate(id: bigint): Promise<number> {
      let timer: NodeJS.Timeout | undefined;
      const seen = new Promise<number | undefined>((resolve) => {
        looking = { marker: `"id":${id},`, seen: resolve };
        timer = setTimeout(() => resolve(undefined), EVENT_TIMEOUT_MS);
      });
      const { status, text } = await postPlant(url, token, `{"id":${id},"name":"Probe"}`);
      const answered = performance.now();
      if (status !== 200) throw new Error(`the latency probe's create got ${status}: ${text.slice(0, 200)}`);
      const at = await seen;
      clearTimeout(timer);
      looking = undefined;
      if (at === undefined) throw new Error(`the event of plant ${id} did not reach a subscriber within 10 s`);
      // The event can be read before the create's own answer: both leave the server right after the commit.
      return Math.max(0, at - answered);
    },
    close() {
      closed = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}

/**
 * Times creates to their events one after another (a pause of 20 ms between them) until stopped: a
 * few dozen creates a second beside wrk's thousands, so the load measured is still wrk's.
 */
export function startLatencyProbe(subscribers: Subscribers, nextId: () => bigint): { stop(): Promise<number[]> } {
  let running = true;
  const samples: number[] = [];
  const loop = (async () => {
    while (running) {
      samples.push(await subscribers.timeOneCreate(nextId()));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  // A failure is reported by stop(); until then it must not be an unhandled rejection.
  loop.catch(() => undefined);
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}
