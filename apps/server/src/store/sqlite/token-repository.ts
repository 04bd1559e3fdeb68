import type { Database, Statement } from "better-sqlite3";
import type { TokenInfo, TokenRepository } from "../storage.js";

interface TokenRow {
  id: number;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

function info(row: TokenRow): TokenInfo {
  const base = { id: row.id, label: row.label, createdAt: row.created_at };
  return row.revoked_at === null ? base : { ...base, revokedAt: row.revoked_at };
}

export class SqliteTokenRepository implements TokenRepository {
  private readonly selectActive: Statement<[], { hash: Buffer }>;
  private readonly insert: Statement<[Buffer, string], TokenRow>;
  private readonly insertIfNoneActive: Statement<[Buffer, string]>;
  private readonly revokeOne: Statement<[number]>;
  private readonly selectAll: Statement<[], TokenRow>;

  constructor(db: Database) {
    this.selectActive = db.prepare("SELECT hash FROM api_tokens WHERE revoked_at IS NULL");
    // Adding a token that exists returns it unchanged (as on PostgreSQL), never a constraint error.
    this.insert = db.prepare(
      "INSERT INTO api_tokens (hash, label) VALUES (?, ?) ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash RETURNING id, label, created_at, revoked_at",
    );
    // One statement, so two processes starting at once cannot both create a first token.
    this.insertIfNoneActive = db.prepare(
      "INSERT INTO api_tokens (hash, label) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_tokens WHERE revoked_at IS NULL)",
    );
    this.revokeOne = db.prepare(
      "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND revoked_at IS NULL",
    );
    this.selectAll = db.prepare("SELECT id, label, created_at, revoked_at FROM api_tokens ORDER BY id");
  }

  async activeHashes(): Promise<Buffer[]> {
    return this.selectActive.all().map((row) => row.hash);
  }

  async add(hash: Buffer, label: string): Promise<TokenInfo> {
    return info(this.insert.get(hash, label)!);
  }

  async addIfNoneActive(hash: Buffer, label: string): Promise<boolean> {
    return this.insertIfNoneActive.run(hash, label).changes === 1;
  }

  async revoke(id: number): Promise<boolean> {
    return this.revokeOne.run(id).changes === 1;
  }

  async list(): Promise<TokenInfo[]> {
    return this.selectAll.all().map(info);
  }
}
