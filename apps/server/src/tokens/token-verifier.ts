import { timingSafeEqual } from "node:crypto";
import type { Logger } from "../logger.js";
import type { TokenRepository } from "../store/storage.js";
import { hashToken } from "./token-hash.js";

/** How long a token added or revoked in the database may take to be seen by a running server. */
const REFRESH_INTERVAL_MS = 1_000;
/** A miss re-reads the table at most this often, so a flood of bad tokens cannot flood the database. */
const MISS_REFRESH_MIN_INTERVAL_MS = 250;

/**
 * Decides whether a presented bearer token is valid. The valid set is PLANTSTORE_TOKENS plus the
 * database's active tokens, held in memory as SHA-256 digests and refreshed every second (so a
 * token revoked with `plantstore-server tokens revoke` stops working within a second).
 * Each check compares the digest with every valid digest in constant time, without early exit.
 */
export class TokenVerifier {
  private configured: Buffer[];
  private stored: Buffer[] = [];
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    configuredTokens: readonly string[],
    private readonly repository: TokenRepository,
    private readonly logger: Logger,
  ) {
    this.configured = configuredTokens.map(hashToken);
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** True when the token is valid. Synchronous on a hit; a miss may re-read the table once. */
  verify(token: string): boolean | Promise<boolean> {
    const digest = hashToken(token);
    if (this.matches(digest)) return true;
    if (Date.now() - this.lastRefresh < MISS_REFRESH_MIN_INTERVAL_MS) return false;
    return this.refresh().then(() => this.matches(digest));
  }

  private matches(digest: Buffer): boolean {
    let found = false;
    for (const candidate of this.configured) found = timingSafeEqual(candidate, digest) || found;
    for (const candidate of this.stored) found = timingSafeEqual(candidate, digest) || found;
    return found;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.repository
      .activeHashes()
      .then((hashes) => {
        this.stored = hashes.filter((hash) => hash.length === 32);
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
