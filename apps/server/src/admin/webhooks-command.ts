import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@plantstore/contract";
import type { Storage } from "../store/storage.js";
import { parseCommand, runAdminCommand, UsageError } from "./usage.js";
import { generateSecret, ROTATION_OVERLAP_MS } from "../webhooks/signing.js";

const USAGE = `usage: plantstore-server webhooks <command>
  add <url> [--events a,b]        add an endpoint (events: ${WEBHOOK_EVENT_TYPES.join(", ")}; default all);
                                  prints its secret once
  list                            list endpoints (id, url, events, source, state)
  remove <id>                     remove an endpoint and its deliveries (the only way they are
                                  deleted: a URL that leaves PLANTSTORE_WEBHOOK_URLS is disabled)
  rotate-secret <id>              give an endpoint a new secret (printed once); the old one keeps
                                  signing alongside for 24 hours
  deliveries [--failed] [--limit n]  list deliveries, newest first
  redeliver <id>                  send a delivery again, from its first attempt`;

function idOf(text: string | undefined): number {
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) throw new UsageError("");
  return Number(text);
}

function eventsOf(text: string | undefined): WebhookEventType[] {
  if (text === undefined) return [...WEBHOOK_EVENT_TYPES];
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const unknown = names.filter((name) => !isWebhookEventType(name));
  if (unknown.length > 0 || names.length === 0) {
    const what =
      unknown.length > 0 ? `unknown event ${unknown.map((name) => JSON.stringify(name)).join(", ")}` : "no event";
    throw new UsageError(`--events: ${what} (known: ${WEBHOOK_EVENT_TYPES.join(", ")})`);
  }
  return names.filter(isWebhookEventType);
}

function urlOf(text: string | undefined): string {
  if (text === undefined) throw new UsageError("");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError("the URL must be http:// or https://");
  return text;
}

/**
 * `webhooks add | list | remove | rotate-secret | deliveries | redeliver` against the configured
 * DATABASE_URL. Running servers see endpoint changes at once (events and claims read the table).
 * Exit codes: 0, 1 (no such endpoint or delivery), 2 (usage).
 */
export async function runWebhooksCommand(
  args: string[],
  open: () => Promise<Storage>,
  out = process.stdout,
): Promise<number> {
  // Storage is opened once the command is known to be well formed (bad usage needs no database).
  const webhooks = async () => (await open()).webhooks;
  return runAdminCommand("webhooks", USAGE, async () => {
    const { positionals, values } = parseCommand(args, {
      events: { type: "string" },
      failed: { type: "boolean" },
      limit: { type: "string" },
    });
    const [command, argument, extra] = positionals;
    if (extra !== undefined) throw new UsageError("");
    if (values.events !== undefined && command !== "add") throw new UsageError("");
    if ((values.failed !== undefined || values.limit !== undefined) && command !== "deliveries")
      throw new UsageError("");
    switch (command) {
      case "add": {
        const [url, events, secret] = [urlOf(argument), eventsOf(values.events), generateSecret()];
        const endpoint = await (await webhooks()).addEndpoint(url, events, secret);
        out.write(`${secret}\n`);
        process.stderr.write(
          `added webhook endpoint ${endpoint.id} for ${endpoint.events.join(", ")}; its secret is shown only this once\n`,
        );
        return 0;
      }
      case "list": {
        if (argument !== undefined) throw new UsageError("");
        for (const endpoint of await (await webhooks()).listEndpoints()) {
          const state = endpoint.disabledAt ? `disabled ${endpoint.disabledAt} (${endpoint.disabledReason})` : "active";
          out.write(`${endpoint.id}\t${endpoint.url}\t${endpoint.events.join(" ")}\t${endpoint.source}\t${state}\n`);
        }
        return 0;
      }
      case "remove": {
        const id = idOf(argument);
        if (await (await webhooks()).removeEndpoint(id)) {
          process.stderr.write(`removed webhook endpoint ${id}\n`);
          return 0;
        }
        process.stderr.write(`no webhook endpoint with id ${id}\n`);
        return 1;
      }
      case "rotate-secret": {
        const id = idOf(argument);
        const secret = generateSecret();
        if (await (await webhooks()).rotateSecret(id, secret, Date.now() + ROTATION_OVERLAP_MS)) {
          out.write(`${secret}\n`);
          process.stderr.write(`new secret for webhook endpoint ${id}; the previous one also signs for 24 hours\n`);
          return 0;
        }
        process.stderr.write(`no webhook endpoint with id ${id}\n`);
        return 1;
      }
      case "deliveries": {
        if (argument !== undefined) throw new UsageError("");
        const limit = values.limit === undefined ? 100 : idOf(values.limit);
        for (const d of await (await webhooks()).listDeliveries({ failedOnly: values.failed === true, limit })) {
          const last = d.lastStatus !== undefined ? `status ${d.lastStatus}` : (d.lastError ?? "");
          out.write(
            `${d.delivery}\t${d.eventId}\t${d.type}\tendpoint ${d.endpoint}\t${d.state}\t${d.attempts} attempt(s)\t${d.at}\t${last}\n`,
          );
        }
        return 0;
      }
      case "redeliver": {
        const id = idOf(argument);
        if (await (await webhooks()).redeliver(id)) {
          process.stderr.write(`delivery ${id} will be sent again\n`);
          return 0;
        }
        process.stderr.write(
          `no delivery ${id} to send again (none with this id, it is pending, or its endpoint is disabled)\n`,
        );
        return 1;
      }
      default:
        throw new UsageError("");
    }
  });
}
