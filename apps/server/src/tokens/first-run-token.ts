import type { TokenRepository } from "../store/storage.js";
import { generateToken, hashToken } from "./token-hash.js";

/**
 * On the very first start, when neither PLANTSTORE_TOKENS nor the token table holds a token,
 * creates one so that a fresh install is usable at once without any default secret. Only its
 * hash is stored; the token itself is returned to be shown once.
 */
export async function createFirstRunToken(
  configuredTokens: readonly string[],
  tokens: TokenRepository,
): Promise<string | undefined> {
  if (configuredTokens.length > 0) return undefined;
  const token = generateToken();
  const created = await tokens.addIfNoneActive(hashToken(token), "first-run");
  return created ? token : undefined;
}

export function firstRunTokenNotice(token: string, url: string): string {
  return [
    "",
    "Plant Store created an API token on first start. It is shown only this once (only its hash is stored):",
    "",
    `  ${token}`,
    "",
    "Use it as a bearer token, for example:",
    `  curl -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\`,
    `       -d '{"id": 1, "name": "Fern"}' ${url}/plants`,
    "Manage tokens with: npm run tokens -- list | create [label] | revoke <id>",
    "",
  ].join("\n");
}
