import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseExactJson } from "@plantstore/contract";
import { Webhook } from "standardwebhooks";

/** One request the receiver got: a delivery attempt. */
export interface Attempt {
  /** `webhook-id`. */
  id: string;
  /** The request's path and query (endpoints may share a receiver, each with its own path). */
  path: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  /** The body read with exact ids. */
  event: { type: string; timestamp: string; data: { id: bigint; name: string; tag?: string } };
  /** How many times this `webhook-id` had arrived before this one (0 for the first). */
  seenBefore: number;
}

/**
 * What the receiver answers an attempt: a status (with optional headers); no answer at all; 200 and
 * then a body that trickles, a byte now and then, and never ends; or 200 and a body as fast as it
 * goes, without end.
 */
export type Reply = number | { status: number; headers: Record<string, string> } | "hang" | "trickle" | "flood";

/**
 * A real webhook receiver on 127.0.0.1 for the tests: it records every attempt and answers what the
 * test says (by default 204). `verify` checks attempts with the standardwebhooks reference library.
 */
export class WebhookReceiver {
  readonly attempts: Attempt[] = [];
  /** Answers still being sent (hang, trickle, flood), and the attempt each answers. */
  private readonly hung = new Map<ServerResponse, Attempt>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(public reply: (attempt: Attempt) => Reply) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(reply: (attempt: Attempt) => Reply = () => 204, port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(reply);
    await new Promise<void>((resolve) => receiver.server.listen(port, "127.0.0.1", resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The attempts, one per `webhook-id` (receivers de-duplicate on it). */
  events(): Attempt[] {
    return this.attempts.filter((attempt) => attempt.seenBefore === 0);
  }

  /** Every attempt verifies with this secret (standardwebhooks: signature and timestamp tolerance). */
  verify(secret: string, attempts: Attempt[] = this.attempts): void {
    const webhook = new Webhook(secret);
    for (const attempt of attempts) {
      webhook.verify(attempt.body, {
        "webhook-id": attempt.id,
        "webhook-timestamp": attempt.timestamp,
        "webhook-signature": attempt.signature,
      });
    }
  }

  /** The attempts whose answer is still being sent: the sender has not dropped the connection. */
  answering(): Attempt[] {
    return [...this.hung.values()];
  }

  async close(): Promise<void> {
    for (const res of this.hung.keys()) res.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      const attempt: Attempt = {
        id,
        path: req.url ?? "",
        timestamp: String(req.headers["webhook-timestamp"]),
        signature: String(req.headers["webhook-signature"]),
        contentType: req.headers["content-type"],
        body,
        event: parseExactJson(body) as Attempt["event"],
        seenBefore: this.attempts.filter((earlier) => earlier.id === id).length,
      };
      this.attempts.push(attempt);
      const reply = this.reply(attempt);
      if (reply === "hang" || reply === "trickle" || reply === "flood") {
        this.hung.set(res, attempt);
        res.on("close", () => this.hung.delete(res));
      }
      if (reply === "hang") return;
      if (reply === "trickle" || reply === "flood") {
        res.writeHead(200, { "content-type": "text/plain" });
        if (reply === "trickle") {
          const trickle = setInterval(() => res.write("."), 50);
          res.on("close", () => clearInterval(trickle));
        } else {
          const chunk = Buffer.alloc(16 * 1024, ".");
          const flood = () => {
            while (!res.destroyed && res.write(chunk));
          };
          res.on("drain", flood);
          flood();
        }
        return;
      }
      const { status, headers } = typeof reply === "number" ? { status: reply, headers: {} } : reply;
      res.writeHead(status, headers).end();
    });
  }
}
