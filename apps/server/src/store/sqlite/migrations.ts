import type Database from "better-sqlite3";

/**
 * Versioned schema, applied in order at start. A migration is never edited once released;
 * changes come as a new entry.
 */
const migrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      -- INTEGER PRIMARY KEY is the 64-bit rowid: the id is stored exactly, in its own B-tree key.
      CREATE TABLE plants (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        tag        TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      );
      CREATE TABLE api_tokens (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        hash       BLOB NOT NULL UNIQUE,
        label      TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        revoked_at TEXT
      );
    `,
  },
  {
    version: 2,
    sql: `
      -- Pages of one tag in id order (GET /plants?tag=…): keyset pagination stays an index range.
      CREATE INDEX plants_tag_id ON plants (tag, id);
    `,
  },
  {
    version: 3,
    sql: `
      -- What each token may do; tokens made before scopes existed keep every scope.
      ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'plants:read plants:write metrics:read';
    `,
  },
];

/** Applies pending migrations in one IMMEDIATE transaction: two processes starting on one file apply each once. */
export function applyMigrations(db: Database.Database): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
  db.transaction(() => {
    const applied = new Set(
      db
        .prepare("SELECT version FROM schema_migrations")
        .all()
        .map((row) => (row as { version: number }).version),
    );
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        new Date().toISOString(),
      );
    }
  }).immediate();
}
