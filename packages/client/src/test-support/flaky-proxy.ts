import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/**
 * What the proxy does with one incoming connection:
 * - `drop`: closes it as soon as the request arrives; the server never sees it;
 * - `status-503` / `status-429`: answers that status itself (with `retryAfter` seconds) and closes;
 * - `lose-answer`: forwards the request, then closes the client connection as soon as the
 *   server answers, so the server acted but the client never learns how (an ambiguous failure);
 * - `stall`: accepts the request and never answers.
 * Connections beyond the script are forwarded untouched.
 */
export type ProxyFault =
  | { kind: "drop" }
  | { kind: "status-503" | "status-429"; retryAfter?: string }
  | { kind: "lose-answer" }
  | { kind: "stall" };

export interface FlakyProxy {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of `targetUrl` that misbehaves on its first connections. */
export async function startFlakyProxy(targetUrl: string, faults: ProxyFault[]): Promise<FlakyProxy> {
  const target = new URL(targetUrl);
  const script = [...faults];
  const sockets = new Set<Socket>();
  let accepted = 0;

  const server = createServer((client) => {
    accepted++;
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const fault = script.shift();
    if (fault === undefined) {
      forward(client, target, false);
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
        forward(client, target, true);
        break;
      case "stall":
        client.resume();
        break;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  function forward(client: Socket, to: URL, loseAnswer: boolean): void {
    const upstream = connect(Number(to.port), to.hostname);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    if (loseAnswer) upstream.once("data", () => client.destroy());
    else upstream.pipe(client);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
