import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { webhookSecretKey } from "@plantstore/contract/webhook-signature";
import { generateSecret, signatureHeader } from "./signing.js";

describe("Standard Webhooks signatures", () => {
  it("are verified by the standardwebhooks reference library, with one secret and with two", () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body =
      '{"type":"plant.created","timestamp":"2026-11-22T10:00:00.000Z","data":{"id":9007199254740993,"name":"Fern"}}';
    const timestamp = Math.floor(Date.now() / 1000);
    for (const [secrets, verifier] of [
      [[current], current],
      [[current, previous], current],
      [[current, previous], previous],
    ] as const) {
      const headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, "msg_1", timestamp, body),
      };
      expect(new Webhook(verifier).verify(body, headers)).toEqual(JSON.parse(body));
    }
  });

  it("match the reference library's own signature byte for byte", () => {
    const secret = generateSecret();
    const at = new Date(1_700_000_000_000);
    expect(signatureHeader([secret], "msg_x", 1_700_000_000, "{}")).toBe(new Webhook(secret).sign("msg_x", at, "{}"));
  });

  it.each([
    ["no prefix", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"],
    ["too short", `whsec_${Buffer.alloc(23).toString("base64")}`],
    ["too long", `whsec_${Buffer.alloc(65).toString("base64")}`],
    ["not base64", "whsec_not*base64*at*all*here*xx"],
  ])("refuses a secret with %s", (_case, secret) => {
    expect(() => webhookSecretKey(secret)).toThrow(RangeError);
  });
});
