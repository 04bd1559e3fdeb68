import { createHash, randomBytes } from "node:crypto";

/** Tokens are stored and compared only as SHA-256 digests. */
export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** A new token: a recognisable prefix and 256 random bits, URL- and header-safe. */
export function generateToken(): string {
  return `ps_${randomBytes(32).toString("base64url")}`;
}
