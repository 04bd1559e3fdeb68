import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type Database from "better-sqlite3";
import type { Storage } from "../storage.js";
import { InlineBatchWriter, ThreadBatchWriter } from "./batch-writers.js";
import { sqliteMigrations } from "./migrations.js";
import { openConnection } from "./sqlite-connection.js";
import { mapSqliteError } from "./sqlite-errors.js";
import { SqlitePlantRepository } from "./sqlite-plants.js";
import { SqliteTokenRepository } from "./sqlite-tokens.js";

/** `sqlite:<path>` (relative to the working directory), `sqlite:///abs/path` or `sqlite::memory:`. */
export function sqlitePathOf(databaseUrl: string): string {
  const rest = databaseUrl.replace(/^sqlite:/, "");
  if (rest === ":memory:") return rest;
  return resolve(rest.startsWith("//") ? rest.slice(2) : rest);
}

function migrate(db: Database.Database): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
  // IMMEDIATE: two processes starting on one file apply each migration once.
  db.transaction(() => {
    const applied = new Set(
      db
        .prepare("SELECT version FROM schema_migrations")
        .all()
        .map((row) => (row as { version: number }).version),
    );
    for (const migration of sqliteMigrations) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        new Date().toISOString(),
      );
    }
  }).immediate();
}

export function openSqliteStorage(databaseUrl: string): Storage {
  const path = sqlitePathOf(databaseUrl);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = openConnection(path);
    migrate(db);
  } catch (error) {
    throw mapSqliteError(error);
  }
  // A file is written from a writer thread; an in-memory database exists only for this connection.
  const writer = path === ":memory:" ? new InlineBatchWriter(db) : new ThreadBatchWriter(path);
  const plants = new SqlitePlantRepository(db, writer);
  const tokens = new SqliteTokenRepository(db);
  const ping = db.prepare("SELECT 1");
  return {
    kind: "sqlite",
    location: path,
    plants,
    tokens,
    async ping() {
      try {
        ping.get();
        return db.open;
      } catch {
        return false;
      }
    },
    async close() {
      if (!db.open) return;
      await plants.close();
      db.close();
    },
  };
}
