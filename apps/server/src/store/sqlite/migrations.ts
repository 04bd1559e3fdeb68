import type Database from "better-sqlite3";
import { assertNotNewer } from "../schema-version.js";
import { GONE_REASON } from "../webhook-rows.js";

interface Migration {
  version: number;
  /** Run before `sql`, in the same transaction: for a step SQL alone cannot say. */
  before?: (db: Database.Database) => void;
  sql: string;
}

/**
 * Versioned schema, applied in order at start. A migration is never edited once released;
 * changes come as a new entry.
 */
const migrations: readonly Migration[] = [
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
  {
    version: 4,
    sql: `
      -- Webhooks: where events go, the events (the outbox, written in the plant change's own
      -- transaction) and one delivery per event and endpoint. Times in epoch milliseconds.
      CREATE TABLE webhook_endpoints (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        url             TEXT NOT NULL,
        secret          TEXT NOT NULL,
        previous_secret TEXT,
        previous_until  INTEGER,
        events          TEXT NOT NULL,
        source          TEXT NOT NULL,
        created_at      INTEGER NOT NULL,
        disabled_at     INTEGER,
        disabled_reason TEXT
      );
      CREATE TABLE webhook_events (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id   TEXT NOT NULL UNIQUE,
        type       TEXT NOT NULL,
        body       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        event           INTEGER NOT NULL REFERENCES webhook_events (id),
        endpoint        INTEGER NOT NULL REFERENCES webhook_endpoints (id),
        state           TEXT NOT NULL DEFAULT 'pending',
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_until     INTEGER,
        lease_owner     TEXT,
        last_status     INTEGER,
        last_error      TEXT,
        finished_at     INTEGER
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event);
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint, state);
      CREATE INDEX webhook_events_created ON webhook_events (created_at);
    `,
  },
  {
    version: 5,
    sql: `
      -- A claim reads each endpoint's oldest due deliveries: one range of (endpoint, state,
      -- next_attempt_at), as long as what it returns (plus the few leased rows it skips) however
      -- large the backlog; the same index serves removing an endpoint's deliveries. The worker's
      -- wait reads the leased rows, which are few. Event ids are now time-ordered and prunes go in
      -- id order, so the indexes by due time alone, by endpoint alone and by creation time go: each
      -- cost every create a write.
      DROP INDEX webhook_deliveries_due;
      DROP INDEX webhook_deliveries_endpoint;
      DROP INDEX webhook_events_created;
      CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint, state, next_attempt_at, id);
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL;
    `,
  },
  {
    version: 6,
    sql: `
      -- One row per delivery, carrying its event (webhook id, type, body, time): a create with an
      -- endpoint writes one row and its index entries instead of an event row, a delivery row and
      -- the index joining them (the event's body is repeated per endpoint; most have one or two).
      -- The new table's AUTOINCREMENT counter starts where the old one stopped: a delivery id, which
      -- the admin command shows and re-sends by, is never given twice.
      CREATE TABLE webhook_deliveries_v6 (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id        TEXT NOT NULL,
        type            TEXT NOT NULL,
        body            TEXT NOT NULL,
        created_at      INTEGER NOT NULL,
        endpoint        INTEGER NOT NULL REFERENCES webhook_endpoints (id),
        state           TEXT NOT NULL DEFAULT 'pending',
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_until     INTEGER,
        lease_owner     TEXT,
        last_status     INTEGER,
        last_error      TEXT,
        finished_at     INTEGER
      );
      INSERT INTO webhook_deliveries_v6 (id, event_id, type, body, created_at, endpoint, state, attempts,
          next_attempt_at, lease_until, lease_owner, last_status, last_error, finished_at)
        SELECT d.id, e.event_id, e.type, e.body, e.created_at, d.endpoint, d.state, d.attempts,
          d.next_attempt_at, d.lease_until, d.lease_owner, d.last_status, d.last_error, d.finished_at
        FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event;
      DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries_v6';
      INSERT INTO sqlite_sequence (name, seq)
        SELECT 'webhook_deliveries_v6', seq FROM sqlite_sequence WHERE name = 'webhook_deliveries';
      DROP TABLE webhook_deliveries;
      DROP TABLE webhook_events;
      ALTER TABLE webhook_deliveries_v6 RENAME TO webhook_deliveries;
      CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint, state, next_attempt_at, id);
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL;
    `,
  },
  {
    version: 7,
    sql: `
      -- The oldest pending delivery (plantstore_webhook_oldest_pending_seconds, read at every
      -- scrape): one index step, where reading every pending row held the event loop ~19 ms per
      -- 30,000 pending (a dead endpoint's backlog grows without bound). Only pending rows are in it.
      CREATE INDEX webhook_deliveries_pending_created ON webhook_deliveries (created_at) WHERE state = 'pending';
    `,
  },
  {
    version: 8,
    sql: `
      -- The outbox: one row per commit that had events, holding all of them (see webhook-writes.ts).
      -- A delivery row per event and endpoint, written inside the create's commit, cost a create with
      -- an endpoint ~4.5 µs of its ~55; the worker now writes those rows when it picks the events up.
      -- No AUTOINCREMENT: an outbox row lives until the worker expands it, and nothing refers to it.
      CREATE TABLE webhook_outbox (
        id         INTEGER PRIMARY KEY,
        created_at INTEGER NOT NULL,
        events     TEXT NOT NULL
      );
    `,
  },
  {
    version: 9,
    sql: `
      -- The token table's changes, counted: every insert or change of a token takes the next
      -- version, kept in the row (changed), so that a running server reads only the rows changed
      -- since it last looked (the refresh read every active token every second). A trigger, so that
      -- every writer counts, an older server's admin command included. tokens_held: this store has
      -- held a token at some time (stored, or PLANTSTORE_TOKENS); a first-run token is made only on a
      -- store that has not, so that revoking every token never mints a new one at the next start.
      CREATE TABLE api_token_state (
        only_row    INTEGER PRIMARY KEY CHECK (only_row = 1),
        version     INTEGER NOT NULL,
        tokens_held INTEGER NOT NULL
      );
      INSERT INTO api_token_state (only_row, version, tokens_held)
        SELECT 1, coalesce(max(id), 0), count(*) > 0 FROM api_tokens;
      ALTER TABLE api_tokens ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
      UPDATE api_tokens SET changed = id;
      CREATE INDEX api_tokens_changed ON api_tokens (changed);
      CREATE TRIGGER api_tokens_count_insert AFTER INSERT ON api_tokens BEGIN
        UPDATE api_token_state SET version = version + 1, tokens_held = 1;
        UPDATE api_tokens SET changed = (SELECT version FROM api_token_state) WHERE id = NEW.id;
      END;
      CREATE TRIGGER api_tokens_count_update AFTER UPDATE OF hash, label, scopes, revoked_at ON api_tokens BEGIN
        UPDATE api_token_state SET version = version + 1, tokens_held = 1;
        UPDATE api_tokens SET changed = (SELECT version FROM api_token_state) WHERE id = NEW.id;
      END;
    `,
  },
  {
    version: 10,
    // The outbox goes: a commit writes its events' delivery rows itself, the one model of events on
    // both backends (see webhook-writes.ts). The events an older version left in it become the
    // delivery rows its claims would have made of them, then the table is dropped.
    before: expandOutboxRows,
    sql: "DROP TABLE webhook_outbox;",
  },
  {
    version: 11,
    sql: `
      -- The change log: one row per committed change (created, updated, deleted), written in the
      -- change's own transaction: its position, the plant's version and its event's body (what
      -- webhooks send and GET /plants/changes streams). Positions come from the one row of
      -- plant_change_head, as on PostgreSQL; SQLite has one writer at a time, so they follow commit
      -- order by themselves. Pruned oldest first by the primary key alone.
      CREATE TABLE plant_change_head (
        only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
        position INTEGER NOT NULL
      );
      INSERT INTO plant_change_head (only_row, position) VALUES (1, 0);
      CREATE TABLE plant_changes (
        position   INTEGER PRIMARY KEY,
        type       TEXT NOT NULL,
        version    TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        body       TEXT NOT NULL
      );
    `,
  },
  {
    version: 12,
    sql: `
      -- Finding plants by a name prefix (GET /plants?name=…): the name key, lower(name) (A–Z folded,
      -- as PostgreSQL's lower(name COLLATE "C") does), in code point order; a prefix is a range of
      -- it. By name alone, and within a tag. Each costs a create one index entry.
      CREATE INDEX plants_name_prefix ON plants (lower(name), id);
      CREATE INDEX plants_tag_name_prefix ON plants (tag, lower(name), id);
    `,
  },
];

/** The newest version this code knows. */
export const SCHEMA_VERSION = Math.max(...migrations.map((migration) => migration.version));

/**
 * Migration 10: each event in webhook_outbox (a row per commit, an event per line: `<event id>
 * <type> <endpoint ids, comma-separated> <body>`) becomes a delivery per endpoint, due from its
 * commit's time, as the claims of the version that wrote them did it: none for an endpoint removed
 * since (removing one deletes its deliveries), failed for one that answered 410 Gone since (its
 * pending deliveries failed with it), pending for any other. Frozen with the migration.
 */
function expandOutboxRows(db: Database.Database): void {
  const outbox = db.prepare("SELECT created_at, events FROM webhook_outbox ORDER BY id").all() as Array<{
    created_at: number;
    events: string;
  }>;
  if (outbox.length === 0) return;
  const gone = new Map(
    (
      db
        .prepare("SELECT id, coalesce(disabled_reason = ?, 0) AS gone FROM webhook_endpoints")
        .all(GONE_REASON) as Array<{
        id: number;
        gone: 0 | 1;
      }>
    ).map(({ id, gone }) => [id, gone === 1]),
  );
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (event_id, type, body, created_at, endpoint, next_attempt_at, state, last_error,
       finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const now = Date.now();
  for (const { created_at: at, events } of outbox) {
    for (const line of events.split("\n")) {
      const afterId = line.indexOf(" ");
      const afterType = line.indexOf(" ", afterId + 1);
      const afterEndpoints = line.indexOf(" ", afterType + 1);
      const [eventId, type, body] = [
        line.slice(0, afterId),
        line.slice(afterId + 1, afterType),
        line.slice(afterEndpoints + 1),
      ];
      for (const endpoint of line
        .slice(afterType + 1, afterEndpoints)
        .split(",")
        .map(Number)) {
        const endpointGone = gone.get(endpoint);
        if (endpointGone === undefined) continue; // removed since the event
        if (endpointGone) insert.run(eventId, type, body, at, endpoint, at, "failed", GONE_REASON, now);
        else insert.run(eventId, type, body, at, endpoint, at, "pending", null, null);
      }
    }
  }
}

/**
 * Applies pending migrations in one IMMEDIATE transaction: two processes starting on one file apply
 * each once. A schema newer than this code stops the start (SchemaNewerError, as on PostgreSQL).
 * `through` stops at a version (tests build an older schema to upgrade from).
 */
export function applyMigrations(db: Database.Database, through = Number.POSITIVE_INFINITY): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
  db.transaction(() => {
    const applied = new Set(
      db
        .prepare("SELECT version FROM schema_migrations")
        .all()
        .map((row) => (row as { version: number }).version),
    );
    assertNotNewer(Math.max(0, ...applied), SCHEMA_VERSION);
    for (const migration of migrations) {
      if (applied.has(migration.version) || migration.version > through) continue;
      migration.before?.(db);
      db.exec(migration.sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        new Date().toISOString(),
      );
    }
  }).immediate();
}
