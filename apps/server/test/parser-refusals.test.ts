import { connect } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { killSpawnedServers, spawnServer, waitForOutput } from "../src/test-support/test-server.js";

const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

/** Sends `bytes` in one write on a fresh connection; resolves with everything the server sent back. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes, "latin1"));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

const requestIdOf = (answer: string) => /\r\nX-Request-Id: ([^\r\n]*)\r\n/.exec(answer)?.[1];

describe("requests Node's HTTP parser refuses", () => {
  it("echo the client's X-Request-Id and log the method and path, as every answer does", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    const port = Number(new URL(server.url).port);
    const cases: [string, string, number, { requestId?: string; method?: string; path?: string }][] = [
      [
        "a control byte in a header, after the id",
        "PUT /plants/7?secret=1 HTTP/1.1\r\nHost: x\r\nX-Request-Id: refused-1\r\nX-Bad: a\u0001b\r\n\r\n",
        400,
        { requestId: "refused-1", method: "PUT", path: "/plants/7" },
      ],
      [
        "a control byte in a header, before the id",
        "DELETE /plants/8 HTTP/1.1\r\nX-Bad: a\u0001b\r\nx-request-id:  refused-2 \r\n\r\n",
        400,
        { requestId: "refused-2", method: "DELETE", path: "/plants/8" },
      ],
      [
        "headers over the limit",
        `GET /plants HTTP/1.1\r\nX-Request-Id: refused-3\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
        431,
        { requestId: "refused-3", method: "GET", path: "/plants" },
      ],
      [
        "both Content-Length and chunked",
        "POST /plants HTTP/1.1\r\nX-Request-Id: refused-4\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
        400,
        { requestId: "refused-4", method: "POST", path: "/plants" },
      ],
      [
        "a bad request pipelined after a good one (its own head, not the first one's)",
        "GET /healthz HTTP/1.1\r\nX-Request-Id: good-5\r\n\r\nBREW /pot HTTP/1.1\r\nX-Request-Id: refused-5\r\n\r\n",
        400,
        { requestId: "refused-5", method: "BREW", path: "/pot" },
      ],
    ];
    for (const [what, bytes, status, expected] of cases) {
      const answer = await exchange(port, bytes);
      const refusal = answer.slice(answer.lastIndexOf("HTTP/1.1 "));
      expect(refusal.startsWith(`HTTP/1.1 ${status} `), `${what}: ${refusal}`).toBe(true);
      expect(requestIdOf(refusal), what).toBe(expected.requestId);
      const line = await waitForOutput(server, new RegExp(`\\{[^\\n]*"requestId":"${expected.requestId}"[^\\n]*\\}`));
      expect(JSON.parse(line[0]), what).toMatchObject({
        operation: "unparsed",
        method: expected.method,
        path: expected.path,
        status,
      });
    }
  });

  it("answer a new id when the client's is not sane or is sent twice, and guess nothing", async () => {
    const server = await spawnServer({ DATABASE_URL: await backend.freshDatabaseUrl() });
    const port = Number(new URL(server.url).port);
    for (const bytes of [
      "GET / HTTP/1.1\r\nX-Request-Id: has space\r\nX-Bad: \u0001\r\n\r\n",
      `GET / HTTP/1.1\r\nX-Request-Id: ${"x".repeat(129)}\r\nX-Bad: \u0001\r\n\r\n`,
      "GET / HTTP/1.1\r\nX-Request-Id: one\r\nX-Request-Id: two\r\nX-Bad: \u0001\r\n\r\n",
    ]) {
      expect(requestIdOf(await exchange(port, bytes))).toMatch(/^[0-9a-f-]{36}$/);
    }
    // No request line at the start: no method or path is made up.
    const id = requestIdOf(await exchange(port, "\u0001\u0002 nonsense\r\nX-Request-Id: junk-1\r\n\r\n"));
    const line = await waitForOutput(server, new RegExp(`\\{[^\\n]*"requestId":"${id}"[^\\n]*\\}`));
    const logged = JSON.parse(line[0]) as Record<string, unknown>;
    expect(logged).not.toHaveProperty("method");
    expect(logged).not.toHaveProperty("path");
  });
});
