import { ErrorCode, MAX_ID_LITERAL_LENGTH, MAX_JSON_DEPTH } from "@plantstore/contract";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { killSpawnedServers, spawnServer, TOKEN } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * The worst bodies we know of for the exact-JSON reader, at the largest body limit the server
 * allows, are each answered with a 400 or 413 JSON Error while `/healthz` keeps answering. The
 * server runs as its own process, so a stalled event loop there cannot stall this test's clock.
 */
const LIMIT = 1024 * 1024;
const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

/** `text` padded with `unit` repeated in the middle, to exactly LIMIT bytes (all ASCII). */
function fill(before: string, unit: string, after: string): string {
  const count = Math.floor((LIMIT - before.length - after.length) / unit.length);
  return `${before}${unit.repeat(count)}${after}`;
}

/** `before`, then `item(0)`, `item(1)`, … joined by commas while they fit in LIMIT bytes, then `after`. */
function list(before: string, item: (i: number) => string, after: string): string {
  const items: string[] = [];
  let length = before.length + after.length;
  for (let i = 0; length + item(i).length + 1 <= LIMIT; i++) {
    items.push(item(i));
    length += item(i).length + 1;
  }
  return `${before}${items.join(",")}${after}`;
}

const SHAPES: Array<{ name: string; body: string; status: number; code: number; message: RegExp }> = [
  {
    name: "an id of a long zero run ending in a digit",
    body: fill('{"id":1', "0", '1,"name":"x"}'),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: new RegExp(`an id is at most ${MAX_ID_LITERAL_LENGTH}`),
  },
  {
    name: "an id with a long fraction of zeros",
    body: fill('{"id":1.', "0", '1,"name":"x"}'),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /an id is at most/,
  },
  {
    name: "an id of a long digit string",
    body: fill('{"id":', "7", ',"name":"x"}'),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /an id is at most/,
  },
  {
    name: "an id with a long exponent",
    body: fill('{"id":1e', "0", '1,"name":"x"}'),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /an id is at most/,
  },
  {
    name: "a long number elsewhere",
    body: fill('{"id":1,"name":"x","n":1', "0", "1}"),
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: /^n: is not a field/,
  },
  {
    name: "arrays nested as deep as the body allows",
    body: fill("", "[", ""),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`),
  },
  {
    name: "balanced nesting of objects",
    body: `${'{"a":'.repeat((LIMIT - 1) / 6)}1${"}".repeat((LIMIT - 1) / 6)}`,
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /nested deeper than/,
  },
  {
    name: "many members",
    body: list("{", (i) => `"k${i}":${i}`, "}"),
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: /is not a field/,
  },
  {
    name: "one member repeated many times",
    body: fill('{"id":1,"name":"x"', ',"id":1', "}"),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /the member "id" appears twice/,
  },
  {
    name: "a long name of escapes",
    body: fill('{"id":1,"name":"', '\\u00e9\\n\\"', '"}'),
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: /^name: must be at most 256/,
  },
  {
    name: "a long name of backslashes, unterminated",
    body: fill('{"id":1,"name":"', "\\\\", ""),
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: /unexpected end of input/,
  },
  {
    name: "many exact ids",
    body: list("[", (i) => `{"id":${i}.000e0}`, "]"),
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: /body: must be a JSON object/,
  },
  {
    name: "one byte over the limit",
    body: `${fill('{"id":1,"name":"', "a", '"}')} `,
    status: 413,
    code: ErrorCode.BODY_TOO_LARGE,
    message: /at most 1048576 bytes/,
  },
];

describe(`bodies built to be slow, at PLANTSTORE_BODY_LIMIT_BYTES=${LIMIT}`, () => {
  it("are each answered with a JSON Error while /healthz keeps answering", async () => {
    for (const shape of SHAPES) {
      const size = Buffer.byteLength(shape.body);
      expect(size, shape.name).toBeGreaterThan(LIMIT * 0.9);
      expect(size, shape.name).toBeLessThanOrEqual(shape.status === 413 ? LIMIT + 1 : LIMIT);
    }
    const server = await spawnServer({
      DATABASE_URL: await backend.freshDatabaseUrl(),
      PLANTSTORE_BODY_LIMIT_BYTES: String(LIMIT),
    });

    // Two clients send every shape, one after the other, again and again, until each shape has
    // been answered twice and /healthz has answered 5 times while they were in flight: a body that
    // holds the event loop stops /healthz for as long as it holds it.
    const answered = new Map<string, number>(SHAPES.map((shape) => [shape.name, 0]));
    const failures: string[] = [];
    let healthzAnswers = 0;
    let stop = false;
    const send = async (first: number) => {
      for (let i = first; !stop; i++) {
        const shape = SHAPES[i % SHAPES.length]!;
        const answer = await fetch(`${server.url}/plants`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: shape.body,
        }).then(
          async (response) => ({ response, body: (await response.json()) as { error?: number; message?: string } }),
          (error: Error) => error,
        );
        if (answer instanceof Error) {
          if (!stop) failures.push(`${shape.name}: no answer (${answer.message})`);
          continue;
        }
        const { response, body } = answer;
        if (response.status !== shape.status || body.error !== shape.code || !shape.message.test(body.message ?? "")) {
          failures.push(`${shape.name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
        }
        answered.set(shape.name, answered.get(shape.name)! + 1);
      }
    };
    const clients = [send(0), send(Math.floor(SHAPES.length / 2))];
    const checkHealth = async () => {
      while (!stop) {
        const status = await fetch(`${server.url}/healthz`).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200) healthzAnswers++;
        else if (!stop) failures.push(`/healthz: ${status}`);
      }
    };
    const health = checkHealth();
    try {
      await waitFor(
        "every shape answered twice and /healthz answered 5 times while they were in flight",
        () => healthzAnswers >= 5 && [...answered.values()].every((count) => count >= 2),
        { timeoutMs: 120_000 },
      );
    } finally {
      stop = true;
      server.child.kill("SIGKILL"); // ends what is still in flight, so a failure ends here too
    }
    await Promise.all([...clients, health]);
    expect(failures).toEqual([]);
    // Nothing was a fault: no error-level log line (a stack overflow logged one per request).
    expect(server.output()).not.toMatch(/"level":50/);
  }, 180_000);
});
