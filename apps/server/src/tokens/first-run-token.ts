import type { TokenRepository } from "../store/storage.js";
import { generateToken, hashToken } from "./token-hash.js";

/**
 * On the very first start of a store that has never held a token (none stored, ever, and no
 * PLANTSTORE_TOKENS), creates one so that a fresh install is usable at once without any default
 * secret. Only its hash is stored; the token itself is returned to be shown once. A store whose
 * tokens were all revoked gets none: that is an operator's decision, not a fresh install.
 */
export async function createFirstRunToken(
  configuredTokens: readonly string[],
  tokens: TokenRepository,
): Promise<string | undefined> {
  if (configuredTokens.length > 0) {
    await tokens.markTokensHeld();
    return undefined;
  }
  const token = generateToken();
  return (await tokens.addFirstRunToken(hashToken(token), "first-run")) ? token : undefined;
}

/**
 * The first-run notice, for standard error: apart from the JSON log lines on standard output, so
 * that a log collector never ingests the token (and `docker logs` still shows it). `url` is one a
 * person can call, `tokensCommand` how to run `tokens` here (admin/command-line.ts).
 */
export function firstRunTokenNotice(token: string, url: string, tokensCommand: (args: string) => string): string {
  return [
    "",
    "Plant Store created an API token on first start. It is shown only this once (only its hash is stored):",
    "",
    `  ${token}`,
    "",
    "Use it as a bearer token, for example:",
    `  curl -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\`,
    `       -d '{"id": 1, "name": "Fern"}' ${url}/plants`,
    `Manage tokens with: ${tokensCommand("list | create [label] | revoke <id>")}`,
    "",
  ].join("\n");
}
