import type { Scope } from "@plantstore/contract";
import type { TokenChanges, TokenInfo, TokenRepository } from "../storage.js";
import { ALL_SCOPES_COLUMN, scopesFromColumn, scopesToColumn, TOKEN_PAGE_ROWS, tokenPageEnd } from "../token-row.js";
import type { PostgresDatabase } from "./database.js";

interface TokenRow {
  id: number;
  label: string;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
}

interface ChangedRow {
  hash: Buffer;
  scopes: string;
  active: boolean;
  /** bigint, as text. */
  changed: string;
}

const TOKEN_COLUMNS = "id, label, scopes, created_at, revoked_at";
const CHANGED_COLUMNS = "hash, scopes, revoked_at IS NULL AS active, changed";

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

  changesSince(since?: number): Promise<TokenChanges> {
    return this.db.run("read token changes", async (pool) => {
      // The version first, the rows after (a later snapshot): they may hold changes past it, read
      // again next time (harmless); never miss one before it, as versions become visible in order.
      const state = await pool.query<{ version: string }>("SELECT version FROM api_token_state");
      const version = Number(state.rows[0]?.version ?? 0);
      if (since === version) return { version, complete: false, tokens: [], more: false };
      // A page in version order (every version is at least 1): see TokenRepository.changesSince.
      const complete = since === undefined || version < since;
      const rows = await pool.query<ChangedRow>(
        `SELECT ${CHANGED_COLUMNS} FROM api_tokens WHERE changed > $1 ORDER BY changed LIMIT $2`,
        [complete ? 0 : since, TOKEN_PAGE_ROWS],
      );
      const tokens = rows.rows.map((row) => ({
        hash: row.hash,
        scopes: scopesFromColumn(row.scopes),
        active: row.active,
      }));
      return {
        ...tokenPageEnd(
          version,
          rows.rows.map((row) => Number(row.changed)),
        ),
        complete,
        tokens,
      };
    });
  }

  add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo> {
    return this.db.write("add token", async (client) => {
      // The hash is unique: adding a token that is already known returns the existing entry
      // (revoked or not) instead of failing on the unique index.
      const inserted = await client.query<TokenRow>(
        `INSERT INTO api_tokens (hash, label, scopes) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING RETURNING ${TOKEN_COLUMNS}`,
        [hash, label, scopesToColumn(scopes)],
      );
      const row =
        inserted.rows[0] ??
        (await client.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = $1`, [hash])).rows[0];
      if (!row) throw new Error("token conflicted on insert but cannot be read back");
      return toTokenInfo(row);
    });
  }

  addFirstRunToken(hash: Buffer, label: string): Promise<boolean> {
    // Claiming the state row locks it until COMMIT: an instance starting at the same moment waits,
    // then finds the store has held a token and adds none.
    return this.db.write("add first token", async (client) => {
      const claimed = await client.query(
        "UPDATE api_token_state SET tokens_held = true WHERE NOT tokens_held RETURNING version",
      );
      if (claimed.rowCount !== 1) return false;
      await client.query("INSERT INTO api_tokens (hash, label, scopes) VALUES ($1, $2, $3)", [
        hash,
        label,
        ALL_SCOPES_COLUMN,
      ]);
      return true;
    });
  }

  markTokensHeld(): Promise<void> {
    return this.db.write("mark tokens held", async (client) => {
      await client.query("UPDATE api_token_state SET tokens_held = true WHERE NOT tokens_held");
    });
  }

  revoke(id: number): Promise<boolean> {
    // Ids are int4 identities: anything else names no token (and must not become a range error).
    if (!Number.isInteger(id) || id < 1 || id > 2 ** 31 - 1) return Promise.resolve(false);
    return this.db.write("revoke token", async (client) => {
      const result = await client.query(
        "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL",
        [id],
      );
      return result.rowCount === 1;
    });
  }

  /** A page at a time: each query stays short, however many tokens there are. */
  list(): Promise<TokenInfo[]> {
    return this.db.run("list tokens", async (pool) => {
      const listed: TokenInfo[] = [];
      for (;;) {
        const page = await pool.query<TokenRow>(
          `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id > $1 ORDER BY id LIMIT $2`,
          [listed.at(-1)?.id ?? 0, TOKEN_PAGE_ROWS],
        );
        listed.push(...page.rows.map(toTokenInfo));
        if (page.rows.length < TOKEN_PAGE_ROWS) return listed;
      }
    });
  }
}
