import { createHmac } from "node:crypto";

/**
 * Standard Webhooks signatures (standard-webhooks/standard-webhooks, spec "Signature scheme"), for
 * both sides: the server signs each delivery attempt, the client's receiver helper verifies it.
 * The key is the base64 part of a `whsec_` secret; the signature of one attempt is
 * `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`.
 *
 * A subpath of its own (`@plantstore/contract/webhook-signature`), not the main entry: it needs
 * node:crypto (a synchronous HMAC), and the main entry is bundled into browser pages by the client.
 */
const PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Secrets carry 24 to 64 random bytes (the issue's and Svix's bounds). */
const KEY_BYTES = { min: 24, max: 64 };

/** The key of a `whsec_<base64 of 24–64 bytes>` secret; throws a message that never quotes the secret. */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  if (encoded === undefined || encoded.length % 4 !== 0 || !BASE64.test(encoded)) {
    throw new RangeError(
      `must be ${PREFIX} followed by the base64 of ${KEY_BYTES.min} to ${KEY_BYTES.max} random bytes`,
    );
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < KEY_BYTES.min || key.length > KEY_BYTES.max) {
    throw new RangeError(`must hold ${KEY_BYTES.min} to ${KEY_BYTES.max} bytes, not ${key.length}`);
  }
  return key;
}

/** One `v1,<base64>` signature of a delivery attempt, with a key from `webhookSecretKey`. */
export function webhookSignature(key: Buffer, webhookId: string, timestamp: number | string, body: string): string {
  return `v1,${createHmac("sha256", key).update(`${webhookId}.${timestamp}.${body}`).digest("base64")}`;
}

export const WEBHOOK_SECRET_PREFIX = PREFIX;
