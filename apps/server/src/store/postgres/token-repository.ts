import type { Scope } from "@plantstore/contract";
import type { ActiveToken, TokenInfo, TokenRepository } from "../storage.js";
import { ALL_SCOPES_COLUMN, scopesFromColumn, scopesToColumn } from "../token-row.js";
import { SCHEMA_LOCK_KEY, TOKEN_LOCK_CLASS } from "./migrations.js";
import type { PostgresDatabase } from "./database.js";
import { inTransaction } from "./transaction.js";

interface TokenRow {
  id: number;
  label: string;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
}

const TOKEN_COLUMNS = "id, label, scopes, created_at, revoked_at";

function toTokenInfo(row: TokenRow): TokenInfo {
  const info: TokenInfo = {
    id: row.id,
    label: row.label,
    scopes: scopesFromColumn(row.scopes),
    createdAt: row.created_at.toISOString(),
  };
  if (row.revoked_at !== null) info.revokedAt = row.revoked_at.toISOString();
  return info;
}

export class PostgresTokenRepository implements TokenRepository {
  constructor(private readonly db: PostgresDatabase) {}

  activeTokens(): Promise<ActiveToken[]> {
    return this.db.run("read tokens", async (pool) => {
      const result = await pool.query<{ id: number; hash: Buffer; scopes: string }>(
        "SELECT id, hash, scopes FROM api_tokens WHERE revoked_at IS NULL",
      );
      return result.rows.map((row) => ({ id: row.id, hash: row.hash, scopes: scopesFromColumn(row.scopes) }));
    });
  }

  add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo> {
    return this.db.run("add token", async (pool) => {
      // The hash is unique: adding a token that is already known returns the existing entry
      // (revoked or not) instead of failing on the unique index.
      const inserted = await pool.query<TokenRow>(
        `INSERT INTO api_tokens (hash, label, scopes) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING RETURNING ${TOKEN_COLUMNS}`,
        [hash, label, scopesToColumn(scopes)],
      );
      const row =
        inserted.rows[0] ??
        (await pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = $1`, [hash])).rows[0];
      if (!row) throw new Error("token conflicted on insert but cannot be read back");
      return toTokenInfo(row);
    });
  }

  addIfNoneActive(hash: Buffer, label: string): Promise<boolean> {
    // "Is there an active token? If not, insert one" is a read-then-write; under READ COMMITTED
    // two instances starting at once could both see none. A transaction-scoped advisory lock makes
    // the pair atomic across every instance on this schema; it is released at COMMIT/ROLLBACK.
    return this.db.run("add first token", (pool) =>
      inTransaction(pool, async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock($1, ${SCHEMA_LOCK_KEY})`, [TOKEN_LOCK_CLASS]);
        const active = await client.query("SELECT 1 FROM api_tokens WHERE revoked_at IS NULL LIMIT 1");
        if (active.rowCount !== 0) return false;
        const inserted = await client.query(
          "INSERT INTO api_tokens (hash, label, scopes) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING",
          [hash, label, ALL_SCOPES_COLUMN],
        );
        return inserted.rowCount === 1;
      }),
    );
  }

  revoke(id: number): Promise<boolean> {
    // Ids are int4 identities: anything else names no token (and must not become a range error).
    if (!Number.isInteger(id) || id < 1 || id > 2 ** 31 - 1) return Promise.resolve(false);
    return this.db.run("revoke token", async (pool) => {
      const result = await pool.query("UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [
        id,
      ]);
      return result.rowCount === 1;
    });
  }

  list(): Promise<TokenInfo[]> {
    return this.db.run("list tokens", async (pool) => {
      const result = await pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY id`);
      return result.rows.map(toTokenInfo);
    });
  }
}
