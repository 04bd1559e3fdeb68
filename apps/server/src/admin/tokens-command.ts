import { SCOPES } from "@plantstore/contract";
import type { Storage } from "../store/storage.js";
import { parseCommand, runAdminCommand, UsageError } from "./usage.js";
import { ALL_SCOPES, formatScopes, parseScopes } from "../tokens/scopes.js";
import { generateToken, hashToken } from "../tokens/token-hash.js";

const USAGE = `usage: plantstore-server tokens <command>
  list                                  list tokens (id, label, scopes, created, revoked); never the tokens
  create [label] [--scopes a,b]         create a token and print it once; scopes (default: all):
                                        ${SCOPES.join(", ")}
  revoke <id>                           revoke a token; running servers refuse it within a second`;

/** `tokens list | create | revoke`: token administration against the configured DATABASE_URL. Exit codes: 0, 1 (no such token), 2 (usage). */
export async function runTokensCommand(
  args: string[],
  open: () => Promise<Storage>,
  out = process.stdout,
): Promise<number> {
  // Storage is opened once the command is known to be well formed (bad usage needs no database).
  const tokens = async () => (await open()).tokens;
  return runAdminCommand("tokens", USAGE, async () => {
    const { positionals, values } = parseCommand(args, { scopes: { type: "string" } });
    const [command, argument, extra] = positionals;
    if (extra !== undefined || (values.scopes !== undefined && command !== "create")) throw new UsageError("");
    switch (command) {
      case "list": {
        for (const token of await (await tokens()).list()) {
          const state = token.revokedAt ? `revoked ${token.revokedAt}` : "active";
          out.write(
            `${token.id}\t${token.label}\t${formatScopes(token.scopes)}\tcreated ${token.createdAt}\t${state}\n`,
          );
        }
        return 0;
      }
      case "create": {
        let scopes = ALL_SCOPES;
        try {
          if (values.scopes !== undefined) scopes = parseScopes(values.scopes.split(",").map((name) => name.trim()));
        } catch (error) {
          throw new UsageError(`--scopes: ${(error as Error).message}`);
        }
        const token = generateToken();
        const info = await (await tokens()).add(hashToken(token), argument ?? "cli", scopes);
        out.write(`${token}\n`);
        process.stderr.write(
          `created token ${info.id} (${info.label}) with scopes ${formatScopes(info.scopes)}; it is shown only this once\n`,
        );
        return 0;
      }
      case "revoke": {
        if (argument === undefined || !/^\d+$/.test(argument)) throw new UsageError("");
        if (await (await tokens()).revoke(Number(argument))) {
          process.stderr.write(`revoked token ${argument}\n`);
          return 0;
        }
        process.stderr.write(`no active token with id ${argument}\n`);
        return 1;
      }
      default:
        throw new UsageError("");
    }
  });
}
