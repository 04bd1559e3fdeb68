import { hash, randomBytes } from "node:crypto";

/** Tokens are stored and compared only as SHA-256 digests. */
export function hashToken(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

/**
 * The digest as the verifier keys its map (base64): computed for every request that carries a
 * token, so in one call (`crypto.hash` is several times cheaper than createHash/update/digest).
 */
export function tokenKey(token: string): string {
  return hash("sha256", token, "base64");
}

/** A new token: a recognisable prefix and 256 random bits, URL- and header-safe. */
export function generateToken(): string {
  return `ps_${randomBytes(32).toString("base64url")}`;
}
