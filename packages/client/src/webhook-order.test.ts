import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientFor } from "./test-support/harness.js";
import { TEST_TOKEN } from "./test-support/test-server.js";
import { EventOrder, verifyWebhook, type ReceivedWebhookEvent } from "./webhook-receiver.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolves once `condition` holds (checked every 20 ms), or fails after `timeoutMs`. */
async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A receiver mirroring the store from its deliveries: every verified event is recorded; it is
 * applied to the mirror when `order` says so (all of them without an order). Deliveries whose plant
 * is named `failUntil[0]` are answered 500 until one named `failUntil[1]` was received, so the
 * server sends them again, and the older edit arrives after the newer one whatever the timing.
 */
async function mirrorReceiver(secret: string, failUntil: [string, string], order: EventOrder | undefined) {
  const mirror = new Map<bigint, string | undefined>();
  const received: ReceivedWebhookEvent[] = [];
  const acknowledged: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      received.push(event);
      if (event.data.name === failUntil[0] && !received.some((other) => other.data.name === failUntil[1])) {
        return res.writeHead(500).end();
      }
      if (order === undefined || order.isNewer(event)) {
        mirror.set(event.data.id, event.type === "plant.deleted" ? undefined : event.data.name);
      }
      acknowledged.push(event.data.name);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, mirror, received, acknowledged };
}

async function editsAtoBtoC(
  order: EventOrder | undefined,
): Promise<{ mirrored: string | undefined; events: ReceivedWebhookEvent[] }> {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const receiver = await mirrorReceiver(secret, ["B", "C"], order);
  const server: DisposableServer = await startDisposableServer({
    tokens: [TEST_TOKEN],
    prefix: "plantstore-client-order-",
    config: { webhookUrls: [receiver.url], webhookSecret: secret, webhookRetryDelaysSeconds: Array(20).fill(0.2) },
  });
  cleanups.push(() => server.close());
  const client = clientFor(server.url);
  const id = 2n ** 53n + 1n;
  await client.createPlant({ id, name: "A" });
  await client.updatePlant(id, { name: "B" });
  await client.updatePlant(id, { name: "C" });
  // B's attempts fail until C arrived: B is acknowledged last.
  await waitFor(() => receiver.acknowledged.includes("B") && receiver.acknowledged.includes("C"));
  return { mirrored: receiver.mirror.get(id), events: receiver.received };
}

describe("the receiving rule (EventOrder)", () => {
  it("a receiver mirroring edits A→B→C whose B failed once and was retried ends on C", async () => {
    const { mirrored, events } = await editsAtoBtoC(new EventOrder());
    expect(mirrored).toBe("C");
    // Each event carries its plant's version and a sequence that grows with each change.
    const [a, b, c] = ["A", "B", "C"].map((name) => events.find((event) => event.data.name === name)!);
    expect(a!.sequence! < b!.sequence! && b!.sequence! < c!.sequence!).toBe(true);
    expect(new Set([a!.version, b!.version, c!.version]).size).toBe(3);
    // B was acknowledged only after C arrived, so without the rule the mirror would end on B.
    const names = events.map((event) => event.data.name);
    expect(names.lastIndexOf("B")).toBeGreaterThan(names.indexOf("C"));
  });

  it("without the rule, the same receiver ends on B (what the rule prevents)", async () => {
    expect((await editsAtoBtoC(undefined)).mirrored).toBe("B");
  });

  it("discards an event whose sequence is not greater than the last applied for its plant, per plant", () => {
    const order = new EventOrder();
    const event = (id: bigint, sequence?: bigint) => ({
      data: { id, name: "x" },
      ...(sequence === undefined ? {} : { sequence }),
    });
    expect(order.isNewer(event(1n, 5n))).toBe(true);
    expect(order.isNewer(event(1n, 4n))).toBe(false);
    expect(order.isNewer(event(1n, 5n))).toBe(false);
    expect(order.isNewer(event(2n, 1n))).toBe(true);
    expect(order.isNewer(event(1n, 6n))).toBe(true);
    expect(order.isNewer(event(1n))).toBe(true);
  });
});
