import { randomBytes } from "node:crypto";
import { WEBHOOK_SECRET_PREFIX, webhookSecretKey, webhookSignature } from "@plantstore/contract/webhook-signature";

/**
 * How long a rotated-out secret still signs deliveries, so that receivers can switch without a gap
 * (`webhooks rotate-secret`, and a changed PLANTSTORE_WEBHOOK_SECRET).
 */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** A new endpoint secret: 32 random bytes. */
export function generateSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated (rotation overlap). */
export function signatureHeader(secrets: readonly string[], eventId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => webhookSignature(webhookSecretKey(secret), eventId, timestamp, body)).join(" ");
}
