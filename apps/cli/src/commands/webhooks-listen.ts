import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  EventOrder,
  verifyWebhook,
  WebhookVerificationError,
  type ReceivedWebhookEvent,
} from "@plantstore/client/webhooks";
import { stringifyExactJson } from "@plantstore/contract";
import { webhookSecretKey } from "@plantstore/contract/webhook-signature";
import { plantLine } from "../plant-text.js";
import { UsageError } from "../usage-error.js";

export interface WebhooksListenOptions {
  port: number;
  host: string;
  secret?: string;
  /** Seconds a delivery's timestamp may be from now. */
  tolerance: number;
}

/** Deliveries are a small JSON event each: anything larger is not one of ours. */
const BODY_LIMIT_BYTES = 1024 * 1024;
/** Webhook ids remembered to spot retries of an event already printed. */
const REMEMBERED_IDS = 10_000;

/** An event as one line: `type<TAB>webhook-id<TAB>id<TAB>name<TAB>tag` (the plant as `get` prints it). */
function eventLine(event: ReceivedWebhookEvent): string {
  return `${event.type}\t${event.webhookId}\t${plantLine(event.data)}`;
}

function answer(res: ServerResponse, status: number, error?: { reason: string; message: string }): void {
  if (error === undefined) {
    res.writeHead(status).end();
    return;
  }
  const body = JSON.stringify({ error: error.reason, message: error.message });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }).end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size <= BODY_LIMIT_BYTES ? Buffer.concat(chunks) : undefined));
    req.on("error", reject);
  });
}

/**
 * `plantstore webhooks listen`: an HTTP endpoint on this machine that verifies each Plant Store
 * delivery with the endpoint's secret (the client's `verifyWebhook`) and prints its event, one a
 * line (--json: one JSON object a line, ids exact). A verified delivery is answered 204, so the
 * server counts it delivered; a refused one 400, so the server retries it, and the reason goes to
 * standard error. A retry of an event already printed is acknowledged and not printed again, and so
 * is an event older than one already printed for its plant (its sequence is not greater: a retry
 * that arrived late), so that the printed events, applied in order, leave each plant as it is.
 * Runs until Ctrl-C or SIGTERM.
 */
export async function webhooksListenCommand(options: WebhooksListenOptions, json: boolean): Promise<number> {
  const { secret } = options;
  if (secret === undefined) throw new UsageError("--secret (or PLANTSTORE_WEBHOOK_SECRET) is required");
  try {
    webhookSecretKey(secret);
  } catch (error) {
    throw new UsageError(`--secret ${(error as Error).message}`);
  }

  const printed = new Set<string>();
  const order = new EventOrder();
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return answer(res, 405, { reason: "method-not-allowed", message: "deliveries are POSTed" });
    }
    readBody(req).then(
      (body) => {
        if (body === undefined) return answer(res, 413, { reason: "too-large", message: "not a Plant Store event" });
        try {
          const event = verifyWebhook(body, req.headers, secret, { toleranceSeconds: options.tolerance });
          answer(res, 204);
          if (printed.has(event.webhookId)) return;
          if (printed.size >= REMEMBERED_IDS) printed.clear();
          printed.add(event.webhookId);
          if (!order.isNewer(event)) {
            process.stderr.write(
              `plantstore: skipped a late ${event.type} of plant ${event.data.id} (sequence ${event.sequence}, older than one already printed)\n`,
            );
            return;
          }
          process.stdout.write(json ? `${stringifyExactJson(event)}\n` : eventLine(event));
        } catch (error) {
          if (error instanceof WebhookVerificationError) {
            process.stderr.write(`plantstore: refused a delivery (${error.reason}): ${error.message}\n`);
            return answer(res, 400, error);
          }
          // Not the delivery's fault: 500, so that the server tries it again later.
          process.stderr.write(`plantstore: could not handle a delivery: ${String(error)}\n`);
          if (!res.headersSent) answer(res, 500, { reason: "internal", message: "could not handle the delivery" });
        }
      },
      () => res.destroy(),
    );
  });

  server.listen(options.port, options.host);
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => {
      throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    }),
  ]);
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  process.stderr.write(`plantstore: listening for webhook deliveries on http://${host}:${port}/ (Ctrl-C to stop)\n`);

  const stop = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await stop;
  server.close();
  server.closeAllConnections();
  return 0;
}
