/**
 * Versioned schema, applied in order at start. A migration is never edited once released;
 * changes come as a new entry.
 */
export const sqliteMigrations: ReadonlyArray<{ version: number; sql: string }> = [
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
];
