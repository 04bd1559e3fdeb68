import { SqliteError } from "better-sqlite3";
import { StorageUnavailableError } from "../storage.js";

/** Result codes that mean "storage cannot serve writes right now", not "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|NOMEM|PROTOCOL|CORRUPT|NOTADB)/;

export function mapSqliteError(error: unknown): Error {
  if (error instanceof SqliteError && UNAVAILABLE.test(error.code)) {
    return new StorageUnavailableError(`SQLite: ${error.code}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
