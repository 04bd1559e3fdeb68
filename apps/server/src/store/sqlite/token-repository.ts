import type { Scope } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import type { TokenChanges, TokenInfo, TokenRepository } from "../storage.js";
import { ALL_SCOPES_COLUMN, scopesFromColumn, scopesToColumn } from "../token-row.js";

interface TokenRow {
  id: number;
  label: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

interface ChangedRow {
  hash: Buffer;
  scopes: string;
  active: 0 | 1;
  changed: number;
}

const COLUMNS = "id, label, scopes, created_at, revoked_at";
const CHANGED_COLUMNS = "hash, scopes, revoked_at IS NULL AS active, changed";

function info(row: TokenRow): TokenInfo {
  const base = { id: row.id, label: row.label, scopes: scopesFromColumn(row.scopes), createdAt: row.created_at };
  return row.revoked_at === null ? base : { ...base, revokedAt: row.revoked_at };
}

/** The rows read and the version they bring the reader to (versions are counted by triggers: migrations.ts). */
function changes(version: number, rows: ChangedRow[], complete: boolean): TokenChanges {
  let reached = version;
  for (const row of rows) reached = Math.max(reached, row.changed);
  const tokens = rows.map((row) => ({
    hash: row.hash,
    scopes: scopesFromColumn(row.scopes),
    active: row.active === 1,
  }));
  return { version: reached, complete, tokens };
}

export class SqliteTokenRepository implements TokenRepository {
  private readonly selectVersion: Statement<[], { version: number }>;
  private readonly selectActive: Statement<[], ChangedRow>;
  private readonly selectChanged: Statement<[number], ChangedRow>;
  private readonly insert: Statement<[Buffer, string, string], TokenRow>;
  private readonly claimFirstRun: Statement<[]>;
  private readonly insertFirstRun: Statement<[Buffer, string, string]>;
  private readonly revokeOne: Statement<[number]>;
  private readonly selectAll: Statement<[], TokenRow>;
  private readonly addFirstRun: (hash: Buffer, label: string) => boolean;

  constructor(db: Database) {
    this.selectVersion = db.prepare("SELECT version FROM api_token_state");
    this.selectActive = db.prepare(`SELECT ${CHANGED_COLUMNS} FROM api_tokens WHERE revoked_at IS NULL`);
    this.selectChanged = db.prepare(`SELECT ${CHANGED_COLUMNS} FROM api_tokens WHERE changed > ?`);
    // Adding a token that exists returns it unchanged (as on PostgreSQL), never a constraint error.
    this.insert = db.prepare(
      `INSERT INTO api_tokens (hash, label, scopes) VALUES (?, ?, ?) ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash RETURNING ${COLUMNS}`,
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
    this.selectAll = db.prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY id`);
  }

  async changesSince(since?: number): Promise<TokenChanges> {
    const { version } = this.selectVersion.get()!;
    if (since === version) return { version, complete: false, tokens: [] };
    if (since === undefined || version < since) return changes(version, this.selectActive.all(), true);
    return changes(version, this.selectChanged.all(since), false);
  }

  async add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo> {
    return info(this.insert.get(hash, label, scopesToColumn(scopes))!);
  }

  async addFirstRunToken(hash: Buffer, label: string): Promise<boolean> {
    return this.addFirstRun(hash, label);
  }

  async markTokensHeld(): Promise<void> {
    this.claimFirstRun.run();
  }

  async revoke(id: number): Promise<boolean> {
    return this.revokeOne.run(id).changes === 1;
  }

  async list(): Promise<TokenInfo[]> {
    return this.selectAll.all().map(info);
  }
}
