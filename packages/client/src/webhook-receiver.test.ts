import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { startDisposableServer } from "@plantstore/server/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { createPlantStoreClient } from "./node.js";
import { TEST_TOKEN } from "./test-support/test-server.js";
import { verifyWebhook, WebhookVerificationError, type ReceivedWebhookEvent } from "./webhook-receiver.js";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const NOW_MS = 1_800_000_000_000;
const now = () => NOW_MS;
const BODY =
  '{"type":"plant.created","timestamp":"2026-11-22T10:00:00.000Z","data":{"id":9223372036854775807,"name":"Max 🌿","tag":"indoor"}}';

/** A delivery signed by the Standard Webhooks reference library (the oracle), at `at`. */
function delivery(secret: string, body = BODY, at = new Date(NOW_MS), id = "msg_1") {
  return {
    body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, at, body),
    },
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error("the delivery was accepted");
}

describe("verifyWebhook", () => {
  it("returns the typed event with its exact id from a delivery the reference library signed", () => {
    const secret = newSecret();
    const { body, headers } = delivery(secret);
    const event = verifyWebhook(body, headers, secret, { now });
    expect(event).toEqual({
      type: "plant.created",
      timestamp: "2026-11-22T10:00:00.000Z",
      data: { id: 2n ** 63n - 1n, name: "Max 🌿", tag: "indoor" },
      webhookId: "msg_1",
    });
    // The same bytes as a Uint8Array, and the headers as a fetch Headers, verify the same.
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret, { now })).toEqual(event);
  });

  it("accepts any one of several signatures (a secret being rotated)", () => {
    const [current, previous] = [newSecret(), newSecret()];
    const { body, headers } = delivery(previous);
    const both = `${delivery(current).headers["webhook-signature"]} ${headers["webhook-signature"]}`;
    expect(verifyWebhook(body, { ...headers, "webhook-signature": both }, previous, { now }).type).toBe(
      "plant.created",
    );
    expect(refusal(() => verifyWebhook(body, headers, current, { now })).reason).toBe("bad-signature");
  });

  it.each([
    ["a tampered body", (d: ReturnType<typeof delivery>) => ({ ...d, body: d.body.replace("Max", "Min") })],
    [
      "a changed webhook-id",
      (d: ReturnType<typeof delivery>) => ({ ...d, headers: { ...d.headers, "webhook-id": "msg_2" } }),
    ],
    [
      "a signature of another scheme",
      (d: ReturnType<typeof delivery>) => ({
        ...d,
        headers: { ...d.headers, "webhook-signature": d.headers["webhook-signature"].replace("v1,", "v1a,") },
      }),
    ],
  ])("refuses %s as bad-signature", (_case, alter) => {
    const secret = newSecret();
    const { body, headers } = alter(delivery(secret));
    expect(refusal(() => verifyWebhook(body, headers, secret, { now })).reason).toBe("bad-signature");
  });

  it("refuses a delivery outside the tolerance, either way, and honours a custom tolerance", () => {
    const secret = newSecret();
    const old = delivery(secret, BODY, new Date(NOW_MS - 301_000));
    const ahead = delivery(secret, BODY, new Date(NOW_MS + 301_000));
    expect(refusal(() => verifyWebhook(old.body, old.headers, secret, { now })).reason).toBe("timestamp-too-old");
    expect(refusal(() => verifyWebhook(ahead.body, ahead.headers, secret, { now })).reason).toBe("timestamp-in-future");
    const edge = delivery(secret, BODY, new Date(NOW_MS - 300_000));
    expect(verifyWebhook(edge.body, edge.headers, secret, { now }).type).toBe("plant.created");
    expect(verifyWebhook(old.body, old.headers, secret, { now, toleranceSeconds: 600 }).type).toBe("plant.created");
  });

  it("names a missing or malformed header, an invalid secret and a signed body that is not an event", () => {
    const secret = newSecret();
    const { body, headers } = delivery(secret);
    const { "webhook-signature": _dropped, ...unsigned } = headers;
    expect(refusal(() => verifyWebhook(body, unsigned, secret, { now })).reason).toBe("missing-header");
    const badTime = { ...headers, "webhook-timestamp": "yesterday" };
    expect(refusal(() => verifyWebhook(body, badTime, secret, { now })).reason).toBe("malformed-header");
    expect(refusal(() => verifyWebhook(body, headers, "whsec_c2hvcnQ=", { now })).reason).toBe("invalid-secret");
    expect(refusal(() => verifyWebhook(body, headers, "not-a-secret", { now })).message).not.toContain("not-a-secret");
    const notAnEvent = delivery(secret, '{"type":"plant.renamed","timestamp":"x","data":{}}');
    expect(refusal(() => verifyWebhook(notAnEvent.body, notAnEvent.headers, secret, { now })).reason).toBe(
      "malformed-body",
    );
  });
});

describe("verifyWebhook on deliveries from the real server", () => {
  const secret = newSecret();
  const received: ReceivedWebhookEvent[] = [];
  const refused: string[] = [];
  const receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        received.push(verifyWebhook(Buffer.concat(chunks), req.headers, secret));
        res.writeHead(204).end();
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  const started = (async () => {
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const { port } = receiver.address() as AddressInfo;
    return startDisposableServer({
      tokens: [TEST_TOKEN],
      prefix: "plantstore-client-webhooks-",
      config: { webhookUrls: [`http://127.0.0.1:${port}/hooks`], webhookSecret: secret },
    });
  })();
  afterAll(async () => {
    await (await started).close();
    receiver.close();
  });

  it("verifies plant.created and plant.deleted with exact ids above 2^53", async () => {
    const server = await started;
    const client = createPlantStoreClient({ baseUrl: server.url, token: TEST_TOKEN });
    const id = 2n ** 53n + 1n;
    await client.createPlant({ id, name: "Monstera", tag: "indoor" });
    await client.deletePlant(id);
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(2);
    expect(refused).toEqual([]);
    // Events of one endpoint may be delivered in parallel, so in any order.
    const byType = received.map(({ type, data }) => ({ type, data })).sort((a, b) => a.type.localeCompare(b.type));
    expect(byType).toEqual([
      { type: "plant.created", data: { id, name: "Monstera", tag: "indoor" } },
      { type: "plant.deleted", data: { id, name: "Monstera", tag: "indoor" } },
    ]);
    expect(new Set(received.map((event) => event.webhookId)).size).toBe(2);
  });
});
