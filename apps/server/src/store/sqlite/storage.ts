import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type Database from "better-sqlite3";
import type { Storage, StorageOptions } from "../storage.js";
import { openConnection } from "./connection.js";
import { mapSqliteError } from "./errors.js";
import { GroupCommit, InlineBatchWriter, ThreadBatchWriter } from "./group-commit.js";
import { applyMigrations } from "./migrations.js";
import { SqlitePlantRepository } from "./plant-repository.js";
import { InlineReader, ThreadReader } from "./reader.js";
import { SqliteTokenRepository } from "./token-repository.js";
import { SqliteWebhookRepository } from "./webhook-repository.js";
import { SqliteChangeLog } from "./change-log.js";

/** `sqlite:<path>` (relative to the working directory), `sqlite:///abs/path` or `sqlite::memory:`. */
function sqlitePathOf(databaseUrl: string): string {
  const rest = databaseUrl.replace(/^sqlite:/, "");
  if (rest === ":memory:") return rest;
  return resolve(rest.startsWith("//") ? rest.slice(2) : rest);
}

/** The first of the file's directories that does not exist, or undefined when they all do. */
function missingDirectory(directory: string): string | undefined {
  let missing: string | undefined;
  for (let dir = directory; !existsSync(dir); dir = dirname(dir)) missing = dir;
  return missing;
}

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why this user cannot open the database, when it is permissions (an unwritable data directory or
 * file: a container's volume owned by another user, a read-only mount), in words that name the
 * path; undefined when it is something else. SQLite and mkdir say only EACCES or CANTOPEN.
 */
function permissionProblem(path: string): Error | undefined {
  if (path === ":memory:") return undefined;
  const directory = dirname(path);
  const missing = missingDirectory(directory);
  if (missing !== undefined) {
    const parent = dirname(missing);
    if (!allowed(parent, constants.W_OK | constants.X_OK)) {
      return new Error(`cannot create the data directory ${missing}: ${parent} is not writable by this user`);
    }
    return undefined;
  }
  if (!allowed(directory, constants.W_OK | constants.X_OK)) {
    return new Error(
      `cannot open the SQLite database ${path}: its directory ${directory} is not writable by this user (SQLite writes its journal beside it)`,
    );
  }
  if (existsSync(path) && !allowed(path, constants.R_OK | constants.W_OK)) {
    return new Error(`cannot open the SQLite database ${path}: the file is not readable and writable by this user`);
  }
  return undefined;
}

export function openSqliteStorage(
  databaseUrl: string,
  options: Pick<StorageOptions, "observeBatch" | "onDeliveries" | "onChanges"> &
    Partial<Pick<StorageOptions, "logger">>,
): Storage {
  const path = sqlitePathOf(databaseUrl);
  let db: Database.Database;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    db = openConnection(path);
    applyMigrations(db);
  } catch (error) {
    throw permissionProblem(path) ?? mapSqliteError(error);
  }
  // A file is written from a writer thread and read from a reader thread, so that neither a commit's
  // fsync nor a lock held by another process ever stalls the event loop; an in-memory database
  // exists only for this connection.
  const inMemory = path === ":memory:";
  const writer = inMemory ? new InlineBatchWriter(db) : new ThreadBatchWriter(path);
  const reader = inMemory ? new InlineReader(db) : new ThreadReader(path, options.logger);
  const groupCommit = new GroupCommit(writer, options.observeBatch, options.onDeliveries, options.onChanges);
  return {
    kind: "sqlite",
    location: path,
    plants: new SqlitePlantRepository(reader, groupCommit),
    tokens: new SqliteTokenRepository(db, reader),
    webhooks: new SqliteWebhookRepository(reader, groupCommit),
    changes: new SqliteChangeLog(reader, groupCommit),
    /** Ready means a read of the file works now; false at once while it is locked (reader.ts). */
    async ping() {
      if (!db.open || reader.refusing) return false;
      return reader.read("readable").then(
        () => true,
        () => false,
      );
    },
    async close() {
      if (!db.open) return;
      await groupCommit.close();
      await reader.close();
      db.close();
    },
  };
}
