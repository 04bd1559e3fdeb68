import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { afterAll, afterEach, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { killSpawnedServers, spawnServer } from "../src/test-support/test-server.js";
import { applyMigrations } from "../src/store/sqlite/migrations.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * A store with 100,000 API tokens (a size operating.md names). The token load read the whole table
 * in one read (about a second); the reader's watchdog took that long healthy read for a lock held by
 * another process and refused it, the refresh retried every second, and the server flapped:
 * /readyz and GET /plants 503 most of the time, and a stored token answered 401. Now the load reads
 * the table a page at a time, and the watchdog refuses only a read that waits for a lock.
 */
const TOKENS = 100_000;
const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

function tokenHash(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** Adds tokens as `tokens create` would (another process, its own connection): all scopes. */
function addTokens(path: string, tokens: readonly Buffer[]): void {
  const db = new Database(path);
  try {
    db.pragma("busy_timeout = 10000");
    const insert = db.prepare("INSERT INTO api_tokens (hash, label) VALUES (?, 'many-tokens test')");
    db.transaction(() => {
      for (const hash of tokens) insert.run(hash);
    })();
  } finally {
    db.close();
  }
}

it("serves steadily with 100,000 stored tokens: /readyz never 503, every stored token accepted", async () => {
  const databaseUrl = await backend.freshDatabaseUrl();
  const path = databaseUrl.replace(/^sqlite:/, "");
  const db = new Database(path);
  applyMigrations(db);
  db.pragma("journal_mode = WAL");
  db.close();
  const known = `ps_many_tokens_${randomBytes(16).toString("hex")}`;
  addTokens(path, [...Array.from({ length: TOKENS - 1 }, () => randomBytes(32)), tokenHash(known)]);

  const server = await spawnServer({ DATABASE_URL: databaseUrl });
  const states = new Map<string, number>();
  const count = (what: string) => states.set(what, (states.get(what) ?? 0) + 1);
  /** One look at the server: /readyz and a read with a stored token, each state counted. */
  const look = async (token: string) => {
    const ready = await fetch(`${server.url}/readyz`);
    count(`readyz ${ready.status}`);
    const plants = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
    count(`plants ${plants.status}`);
    return plants.status === 200;
  };

  // The token stored before the start is accepted. Then, three times, a token is added by another
  // process while the server runs: each is accepted once a refresh has read it, and every look
  // until then (refreshes and all) finds the server ready and serving.
  await waitFor("the stored token to be accepted", () => look(known));
  for (let round = 0; round < 3; round++) {
    const added = `ps_many_tokens_${randomBytes(16).toString("hex")}`;
    addTokens(path, [tokenHash(added)]);
    await waitFor(`token ${round + 1} added while serving to be accepted`, () => look(added), { intervalMs: 50 });
  }
  const looks = [...states.entries()].filter(([state]) => state.startsWith("readyz")).reduce((n, [, c]) => n + c, 0);
  expect(Object.fromEntries(states)).toEqual({
    "readyz 200": looks,
    "plants 200": 4,
    ...(looks > 4 ? { "plants 401": looks - 4 } : {}),
  });
  expect(server.output()).not.toContain("SQLite is locked by another process");
  expect(server.output()).not.toContain("could not refresh API tokens");
}, 120_000);
