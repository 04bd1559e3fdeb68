import type { Scope } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import type { TokenChanges, TokenInfo, TokenRepository } from "../storage.js";
import { ALL_SCOPES_COLUMN, scopesFromColumn, scopesToColumn, TOKEN_PAGE_ROWS, tokenPageEnd } from "../token-row.js";
import { mapSqliteError } from "./errors.js";
import type { Reader } from "./reader.js";
import type { TokenRow } from "./reads.js";

function info(row: TokenRow): TokenInfo {
  const base = { id: row.id, label: row.label, scopes: scopesFromColumn(row.scopes), createdAt: row.created_at };
  return row.revoked_at === null ? base : { ...base, revokedAt: row.revoked_at };
}

/** Runs a token write on this thread's connection, its failure in the storage's terms. */
function writing<T>(write: () => T): Promise<T> {
  try {
    return Promise.resolve(write());
  } catch (error) {
    return Promise.reject(mapSqliteError(error));
  }
}

/**
 * API tokens in SQLite. Reads (the verifier's refresh, the listing) go to the reader thread; the
 * writes are the admin command's and the first start's, made on this thread's connection.
 */
export class SqliteTokenRepository implements TokenRepository {
  private readonly insert: Statement<[Buffer, string, string], TokenRow>;
  private readonly claimFirstRun: Statement<[]>;
  private readonly insertFirstRun: Statement<[Buffer, string, string]>;
  private readonly revokeOne: Statement<[number]>;
  private readonly addFirstRun: (hash: Buffer, label: string) => boolean;

  constructor(
    db: Database,
    private readonly reader: Reader,
  ) {
    // Adding a token that exists returns it unchanged (as on PostgreSQL), never a constraint error.
    this.insert = db.prepare(
      "INSERT INTO api_tokens (hash, label, scopes) VALUES (?, ?, ?) ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash RETURNING id, label, scopes, created_at, revoked_at",
    );
    this.claimFirstRun = db.prepare("UPDATE api_token_state SET tokens_held = 1 WHERE tokens_held = 0");
    this.insertFirstRun = db.prepare("INSERT INTO api_tokens (hash, label, scopes) VALUES (?, ?, ?)");
    // IMMEDIATE: the write lock is taken before the check, so two processes starting on one file
    // cannot both find the store new.
    const addFirstRun = db.transaction((hash: Buffer, label: string) => {
      if (this.claimFirstRun.run().changes !== 1) return false;
      this.insertFirstRun.run(hash, label, ALL_SCOPES_COLUMN);
      return true;
    });
    this.addFirstRun = (hash, label) => addFirstRun.immediate(hash, label);
    this.revokeOne = db.prepare(
      "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND revoked_at IS NULL",
    );
  }

  /** Versions are counted by triggers (migrations.ts). */
  async changesSince(since?: number): Promise<TokenChanges> {
    const { version, complete, rows } = await this.reader.read("tokenChanges", since);
    const tokens = rows.map((row) => ({
      // A Buffer arrives from the reader thread as a plain Uint8Array.
      hash: Buffer.from(row.hash.buffer, row.hash.byteOffset, row.hash.byteLength),
      scopes: scopesFromColumn(row.scopes),
      active: row.active === 1,
    }));
    return {
      ...tokenPageEnd(
        version,
        rows.map((row) => row.changed),
      ),
      complete,
      tokens,
    };
  }

  add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo> {
    return writing(() => info(this.insert.get(hash, label, scopesToColumn(scopes))!));
  }

  addFirstRunToken(hash: Buffer, label: string): Promise<boolean> {
    return writing(() => this.addFirstRun(hash, label));
  }

  markTokensHeld(): Promise<void> {
    return writing(() => void this.claimFirstRun.run());
  }

  revoke(id: number): Promise<boolean> {
    return writing(() => this.revokeOne.run(id).changes === 1);
  }

  /** A page at a time: each read stays short, however many tokens there are. */
  async list(): Promise<TokenInfo[]> {
    const listed: TokenInfo[] = [];
    for (;;) {
      const page = await this.reader.read("tokens", listed.at(-1)?.id ?? 0);
      listed.push(...page.map(info));
      if (page.length < TOKEN_PAGE_ROWS) return listed;
    }
  }
}
