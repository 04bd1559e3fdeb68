import type { Scope } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import type { ActiveToken, TokenInfo, TokenRepository } from "../storage.js";
import { ALL_SCOPES_COLUMN, scopesFromColumn, scopesToColumn } from "../token-row.js";

interface TokenRow {
  id: number;
  label: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = "id, label, scopes, created_at, revoked_at";

function info(row: TokenRow): TokenInfo {
  const base = { id: row.id, label: row.label, scopes: scopesFromColumn(row.scopes), createdAt: row.created_at };
  return row.revoked_at === null ? base : { ...base, revokedAt: row.revoked_at };
}

export class SqliteTokenRepository implements TokenRepository {
  private readonly selectActive: Statement<[], { id: number; hash: Buffer; scopes: string }>;
  private readonly insert: Statement<[Buffer, string, string], TokenRow>;
  private readonly insertIfNoneActive: Statement<[Buffer, string, string]>;
  private readonly revokeOne: Statement<[number]>;
  private readonly selectAll: Statement<[], TokenRow>;

  constructor(db: Database) {
    this.selectActive = db.prepare("SELECT id, hash, scopes FROM api_tokens WHERE revoked_at IS NULL");
    // Adding a token that exists returns it unchanged (as on PostgreSQL), never a constraint error.
    this.insert = db.prepare(
      `INSERT INTO api_tokens (hash, label, scopes) VALUES (?, ?, ?) ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash RETURNING ${COLUMNS}`,
    );
    // One statement, so two processes starting at once cannot both create a first token.
    this.insertIfNoneActive = db.prepare(
      "INSERT INTO api_tokens (hash, label, scopes) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_tokens WHERE revoked_at IS NULL)",
    );
    this.revokeOne = db.prepare(
      "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND revoked_at IS NULL",
    );
    this.selectAll = db.prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY id`);
  }

  async activeTokens(): Promise<ActiveToken[]> {
    return this.selectActive.all().map((row) => ({ id: row.id, hash: row.hash, scopes: scopesFromColumn(row.scopes) }));
  }

  async add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo> {
    return info(this.insert.get(hash, label, scopesToColumn(scopes))!);
  }

  async addIfNoneActive(hash: Buffer, label: string): Promise<boolean> {
    return this.insertIfNoneActive.run(hash, label, ALL_SCOPES_COLUMN).changes === 1;
  }

  async revoke(id: number): Promise<boolean> {
    return this.revokeOne.run(id).changes === 1;
  }

  async list(): Promise<TokenInfo[]> {
    return this.selectAll.all().map(info);
  }
}
