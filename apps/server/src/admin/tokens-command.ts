import type { Storage } from "../store/storage.js";
import { generateToken, hashToken } from "../tokens/token-hash.js";

const USAGE = `usage: plantstore-server tokens <command>
  list              list tokens (id, label, created, revoked); tokens themselves are never shown
  create [label]    create a token and print it once
  revoke <id>       revoke a token; running servers refuse it within a second`;

/** `tokens list | create | revoke`: token administration against the configured DATABASE_URL. */
export async function runTokensCommand(args: string[], storage: Storage, out = process.stdout): Promise<number> {
  const [command, argument] = args;
  switch (command) {
    case "list": {
      for (const token of await storage.tokens.list()) {
        out.write(
          `${token.id}\t${token.label}\tcreated ${token.createdAt}\t${token.revokedAt ? `revoked ${token.revokedAt}` : "active"}\n`,
        );
      }
      return 0;
    }
    case "create": {
      const token = generateToken();
      const info = await storage.tokens.add(hashToken(token), argument ?? "cli");
      out.write(`${token}\n`);
      process.stderr.write(`created token ${info.id} (${info.label}); it is shown only this once\n`);
      return 0;
    }
    case "revoke": {
      if (argument === undefined || !/^\d+$/.test(argument)) break;
      if (await storage.tokens.revoke(Number(argument))) {
        process.stderr.write(`revoked token ${argument}\n`);
        return 0;
      }
      process.stderr.write(`no active token with id ${argument}\n`);
      return 1;
    }
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}
