import type { Scope } from "@plantstore/contract";
import type { Logger } from "../logger.js";
import type { TokenRepository } from "../store/storage.js";
import { parseTokenEntry } from "./scopes.js";
import { tokenKey } from "./token-hash.js";

/** How long a token added or revoked in the database may take to be seen by a running server. */
const REFRESH_INTERVAL_MS = 1_000;
/**
 * A miss (a token created a moment ago, or a bogus one) looks for changes at most this often, so
 * that a flood of bad tokens cannot flood the database. Looking is one read of a one-row table
 * when nothing changed.
 */
const MISS_REFRESH_MIN_INTERVAL_MS = 250;

/** What a valid token is to the gate: what it may do, and a stable key to count its requests by. */
export interface Credential {
  /** The token's SHA-256 digest (base64): the same for the token across refreshes and restarts. */
  readonly key: string;
  readonly scopes: ReadonlySet<Scope>;
}

function credential(key: string, scopes: readonly Scope[]): Credential {
  return { key, scopes: new Set(scopes) };
}

/**
 * Decides whether a presented bearer token is valid and what it may do. The valid set is
 * PLANTSTORE_TOKENS plus the database's active tokens, held in memory by SHA-256 digest and
 * refreshed every second (so a token revoked with `tokens revoke` stops working within a second).
 * A refresh reads only the tokens changed since the last one (TokenRepository.changesSince): its
 * cost does not grow with the number of tokens.
 *
 * Lookup is by digest in a map. Its timing depends only on the digest of what the client sent, and
 * telling anything about a valid token from it would take a SHA-256 preimage: the digest, not the
 * token, is what is compared.
 */
export class TokenVerifier {
  private readonly configured: ReadonlyMap<string, Credential>;
  private readonly stored = new Map<string, Credential>();
  /** The token table's version the stored map reflects; undefined until the first read. */
  private version: number | undefined;
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    configuredTokens: readonly string[],
    private readonly repository: TokenRepository,
    private readonly logger: Logger,
  ) {
    this.configured = new Map(
      configuredTokens.map((entry) => {
        const { token, scopes } = parseTokenEntry(entry);
        const key = tokenKey(token);
        return [key, credential(key, scopes)];
      }),
    );
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The token's credential, or undefined. Synchronous on a hit; a miss may re-read the table once. */
  verify(token: string): Credential | undefined | Promise<Credential | undefined> {
    const key = tokenKey(token);
    const found = this.lookup(key);
    if (found !== undefined || Date.now() - this.lastRefresh < MISS_REFRESH_MIN_INTERVAL_MS) return found;
    return this.refresh().then(() => this.lookup(key));
  }

  /** The credential with this key as the last refresh left it (undefined: revoked or gone); never reads. */
  current(key: string): Credential | undefined {
    return this.lookup(key);
  }

  private lookup(key: string): Credential | undefined {
    return this.configured.get(key) ?? this.stored.get(key);
  }

  /** How many stored (database) tokens are active: 0 means only PLANTSTORE_TOKENS can be used. */
  get storedCount(): number {
    return this.stored.size;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.repository
      .changesSince(this.version)
      .then(({ version, complete, tokens }) => {
        if (complete) this.stored.clear();
        for (const { hash, scopes, active } of tokens) {
          if (hash.length !== 32) continue;
          const key = hash.toString("base64");
          if (active) this.stored.set(key, credential(key, scopes));
          else this.stored.delete(key);
        }
        this.version = version;
      })
      .catch((error: unknown) => {
        // Keep the last known set: a database hiccup must not lock every client out.
        this.logger.warn({ err: error }, "could not refresh API tokens");
      })
      .finally(() => {
        this.lastRefresh = Date.now();
        this.refreshing = undefined;
      });
    return this.refreshing;
  }
}
