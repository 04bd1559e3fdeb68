import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

const backend = sqliteBackend();
const servers: TestServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await backend.cleanup();
});

/** A keep-alive connection that has had one answer: the server holds it open. */
async function openConnection(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  await waitFor("an answer on the held connection", () => /\r\n\r\n/.test(answer));
  return socket;
}

/** What a connection gets when it asks: the answer's status line, or "closed" when the server closed it unanswered. */
function ask(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    sockets.push(socket);
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.includes("\r\n")) resolve(answer.slice(0, answer.indexOf("\r\n")));
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer === "" ? "closed" : answer));
  });
}

describe("PLANTSTORE_MAX_CONNECTIONS", () => {
  it("closes connections past the cap as they arrive, counts them, and takes new ones once one closes", async () => {
    const server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl(), maxConnections: 2 });
    servers.push(server);
    const held = [await openConnection(server.port), await openConnection(server.port)];
    expect(await ask(server.port)).toBe("closed");
    expect(await ask(server.port)).toBe("closed");

    held[0]!.destroy();
    const metrics = await waitFor("a connection to be free again", async () => {
      const response = await server.call("GET", "/metrics").catch(() => undefined);
      return response?.status === 200 ? response.text() : undefined;
    });
    const dropped = /^plantstore_connections_dropped_total (\d+)$/m.exec(metrics)?.[1];
    expect(Number(dropped)).toBeGreaterThanOrEqual(2);
  });
});
