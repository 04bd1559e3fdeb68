import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signatures (standard-webhooks/standard-webhooks, spec "Signature scheme"): the
 * key is the base64 part of a `whsec_` secret; the signature of one delivery attempt is
 * `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`.
 */
const PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key of a `whsec_<base64 of 24–64 bytes>` secret; throws a message that never quotes the secret. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  if (encoded === undefined || encoded.length % 4 !== 0 || !BASE64.test(encoded)) {
    throw new RangeError("must be whsec_ followed by the base64 of 24 to 64 random bytes");
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < 24 || key.length > 64) throw new RangeError(`must hold 24 to 64 bytes, not ${key.length}`);
  return key;
}

/** A new endpoint secret: 32 random bytes. */
export function generateSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated (rotation overlap). */
export function signatureHeader(secrets: readonly string[], eventId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const mac = createHmac("sha256", secretKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
}
