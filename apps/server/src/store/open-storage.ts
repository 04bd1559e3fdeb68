import { openSqliteStorage } from "./sqlite/storage.js";
import type { Storage, StorageOptions } from "./storage.js";

/** DATABASE_URL → the backend: `sqlite:` (embedded, the default) or `postgres://` (shared by instances). */
export async function openStorage(databaseUrl: string, options: StorageOptions): Promise<Storage> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // Loaded only when used, so that SQLite deployments never load the PostgreSQL driver.
    const { openPostgresStorage } = await import("./postgres/storage.js");
    return openPostgresStorage(databaseUrl, options);
  }
  return openSqliteStorage(databaseUrl, options);
}
