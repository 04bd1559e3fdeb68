import { randomBytes } from "node:crypto";
import { WEBHOOK_SECRET_PREFIX, webhookSecretKey, webhookSignature } from "@plantstore/contract";

/** A new endpoint secret: 32 random bytes. */
export function generateSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated (rotation overlap). */
export function signatureHeader(secrets: readonly string[], eventId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => webhookSignature(webhookSecretKey(secret), eventId, timestamp, body)).join(" ");
}
