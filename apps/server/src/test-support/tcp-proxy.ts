import { createServer, connect, type Server, type Socket } from "node:net";

/**
 * Test support: a TCP relay on 127.0.0.1 between a server under test and PostgreSQL. `cut()` makes
 * the database vanish from the server's point of view exactly as a stopped PostgreSQL does: open
 * connections are torn down and new ones are refused (nothing listens on the port). `restore()`
 * listens on the same port again. Tests use this instead of stopping the machine's PostgreSQL,
 * which other tests on this machine share.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private cutAfterMarker: { marker: Buffer; after: Buffer | undefined } | undefined;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    await this.listen(0);
    return this.port;
  }

  /** Drops every relayed connection and stops listening: connects now get ECONNREFUSED. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Arms a one-shot fault: the next time the server sends bytes containing `marker` (e.g. a COMMIT),
   * they reach PostgreSQL, and that connection is then ended before any answer gets back. The
   * database acts on them; the server never learns how it went. With `after`, only on a connection
   * that has sent `after` first (the transaction of one write, say "DELETE FROM plants"): the
   * server's background work (the change log's and webhooks' transactions) commits on other
   * connections meanwhile and must not take the fault.
   */
  cutAfter(marker: string, after?: string): void {
    this.cutAfterMarker = { marker: Buffer.from(marker), after: after === undefined ? undefined : Buffer.from(after) };
  }

  async restore(): Promise<void> {
    if (!this.server) await this.listen(this.port);
  }

  close(): Promise<void> {
    return this.cut();
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.relay(client));
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        this.server = server;
        const address = server.address();
        if (address && typeof address === "object") this.port = address.port;
        resolve();
      });
    });
  }

  private relay(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    // Set when cutAfter fired here: the bytes still go out, and PostgreSQL closes its side.
    let lettingUpstreamFinish = false;
    // Whether this connection has sent the armed fault's `after` text since the fault was armed.
    let armedBy: unknown;
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        if (!lettingUpstreamFinish || socket === upstream) upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      const fault = this.cutAfterMarker;
      if (fault?.after !== undefined && chunk.includes(fault.after)) armedBy = fault;
      if (fault !== undefined && (fault.after === undefined || armedBy === fault) && chunk.includes(fault.marker)) {
        this.cutAfterMarker = undefined;
        lettingUpstreamFinish = true;
        upstream.unpipe(client);
        upstream.resume();
        upstream.end(chunk);
        client.destroy();
        return;
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on("drain", () => client.resume());
    upstream.pipe(client);
  }
}
