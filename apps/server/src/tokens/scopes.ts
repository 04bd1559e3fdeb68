import { isScope, SCOPES, type Scope } from "@plantstore/contract";

/** Scopes as stored and shown: space-separated, as in OAuth's `scope` (RFC 6749 §3.3). */
export const ALL_SCOPES: readonly Scope[] = SCOPES;

/** Names → scopes, in the contract's order; throws naming every unknown one (never ignores it). */
export function parseScopes(given: readonly string[]): Scope[] {
  const names = given.filter((name) => name !== "");
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new RangeError(
      `unknown scope ${unknown.map((name) => JSON.stringify(name)).join(", ")} (known: ${SCOPES.join(", ")})`,
    );
  }
  if (names.length === 0) throw new RangeError(`at least one scope is needed (known: ${SCOPES.join(", ")})`);
  return SCOPES.filter((scope) => names.includes(scope));
}

export function formatScopes(scopes: readonly Scope[]): string {
  return scopes.join(" ");
}

/**
 * The fewest characters a configured token may have. 401s are not throttled, so a token must be
 * beyond guessing on its own: 32 characters of even a small alphabet (hex: 128 bits) are; the
 * generated tokens have 43 (256 bits).
 */
export const MIN_TOKEN_LENGTH = 32;

/** What a bearer token may be (RFC 6750 b64token), MIN_TOKEN_LENGTH to 512 characters. */
const TOKEN_PATTERN = new RegExp(`^(?=.{${MIN_TOKEN_LENGTH},512}$)[A-Za-z0-9\\-._~+/]+=*$`);

export interface ConfiguredToken {
  token: string;
  scopes: readonly Scope[];
}

/**
 * One `PLANTSTORE_TOKENS` entry: `<token>` (every scope) or `<token>:<scope>+<scope>…`. A b64token
 * never contains `:`, so the first colon always ends the token. Throws a message that never
 * contains the token itself.
 */
export function parseTokenEntry(entry: string): ConfiguredToken {
  const colon = entry.indexOf(":");
  const token = colon === -1 ? entry : entry.slice(0, colon);
  if (!TOKEN_PATTERN.test(token)) {
    throw new RangeError(
      `must be ${MIN_TOKEN_LENGTH}–512 characters of A–Z a–z 0–9 - . _ ~ + / (then optional =), optionally followed by :scope+scope`,
    );
  }
  return { token, scopes: colon === -1 ? ALL_SCOPES : parseScopes(entry.slice(colon + 1).split("+")) };
}
