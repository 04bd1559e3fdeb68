import Database from "better-sqlite3";

/**
 * Page cache per connection, in KiB. better-sqlite3 builds SQLite with 16 MiB; a server holds two
 * connections (the writer thread's and the readers'), and the OS page cache keeps the file's hot
 * pages anyway, so a smaller cache costs little time and keeps the process well under 100 MiB.
 */
const CACHE_KIB = 4096;

/**
 * A connection with the settings every one of ours needs: WAL (readers never block the writer),
 * synchronous=FULL (every commit is fsynced before it returns: WAL's default, NORMAL, can lose the
 * last commits on power loss, and a 200 promises the plant is kept), and a busy timeout for the
 * moments another process (the tokens command, a second server) holds the write lock.
 */
export function openConnection(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.pragma(`cache_size = -${CACHE_KIB}`);
  return db;
}
