import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/**
 * What the proxy does with one incoming connection:
 * - `drop`: closes it as soon as the request arrives; the server never sees it;
 * - `status-503` / `status-429`: answers that status itself (with `retryAfter` seconds) and closes;
 * - `lose-answer`: forwards the request, then closes the client connection as soon as the
 *   server answers, so the server acted but the client never learns how (an ambiguous failure);
 * - `stall-answer`: forwards the request and swallows the answer, keeping the connection open:
 *   the server acted and the client waits until its attempt times out;
 * - `stall`: accepts the request and never answers (the server never sees it);
 * - `respond`: answers with this status, headers and body itself (an answer the real server
 *   would not give, such as a 200 that breaks the contract) and closes;
 * - `replace-answer`: forwards the request, and when the server has answered, answers this status,
 *   headers and body instead and closes: the server acted, and the client hears something else (a
 *   503 OUTCOME_UNKNOWN, as the server sends when its storage failed during the commit).
 * Connections beyond the script are forwarded untouched.
 */
export type ProxyFault =
  | { kind: "drop" }
  | { kind: "status-503" | "status-429"; retryAfter?: string }
  | { kind: "lose-answer" }
  | { kind: "stall-answer" }
  | { kind: "stall" }
  | { kind: "respond" | "replace-answer"; status: number; headers?: Record<string, string>; body?: string };

export interface FlakyProxy {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Resolves once `count` connections have sent their first bytes (a request has arrived). */
  requestsArrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of `targetUrl` that misbehaves on its first connections. */
export async function startFlakyProxy(targetUrl: string, faults: ProxyFault[]): Promise<FlakyProxy> {
  const target = new URL(targetUrl);
  const script = [...faults];
  const sockets = new Set<Socket>();
  let accepted = 0;
  let arrived = 0;
  const arrivalWaiters: Array<{ count: number; resolve: () => void }> = [];
  const noteArrival = () => {
    arrived++;
    for (const waiter of arrivalWaiters.filter((candidate) => candidate.count <= arrived)) {
      arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };

  const server = createServer((client) => {
    accepted++;
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    client.once("data", noteArrival);
    const fault = script.shift();
    if (fault === undefined) {
      forward(client, target, "forward");
      return;
    }
    switch (fault.kind) {
      case "drop":
        client.once("data", () => client.destroy());
        break;
      case "status-503":
      case "status-429": {
        const status = fault.kind === "status-503" ? "503 Service Unavailable" : "429 Too Many Requests";
        client.once("data", () => {
          const retryAfter = fault.retryAfter === undefined ? "" : `Retry-After: ${fault.retryAfter}\r\n`;
          client.end(`HTTP/1.1 ${status}\r\n${retryAfter}Content-Length: 0\r\nConnection: close\r\n\r\n`);
        });
        break;
      }
      case "lose-answer":
        forward(client, target, "lose");
        break;
      case "stall-answer":
        forward(client, target, "swallow");
        break;
      case "respond":
        client.once("data", () => client.end(rawAnswer(fault)));
        break;
      case "replace-answer":
        forward(client, target, () => client.end(rawAnswer(fault)));
        break;
      case "stall":
        client.resume();
        break;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  /**
   * `lose`: close the client connection when the answer comes; `swallow`: drop the answer, keep it
   * open; a function: drop the answer and call it when the answer comes.
   */
  function forward(client: Socket, to: URL, answer: "forward" | "lose" | "swallow" | (() => void)): void {
    const upstream = connect(Number(to.port), to.hostname);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    if (answer === "lose") upstream.once("data", () => client.destroy());
    else if (typeof answer === "function") upstream.once("data", answer).resume();
    else if (answer === "swallow") upstream.resume();
    else upstream.pipe(client);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    requestsArrived: (count) =>
      arrived >= count ? Promise.resolve() : new Promise((resolve) => arrivalWaiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP/1.1 answer with this status, headers and body, closing the connection. */
function rawAnswer(fault: { status: number; headers?: Record<string, string>; body?: string }): Buffer {
  const body = Buffer.from(fault.body ?? "");
  const headers = Object.entries({ ...fault.headers, "Content-Length": String(body.length) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${fault.status} X\r\n${headers}Connection: close\r\n\r\n`), body]);
}
