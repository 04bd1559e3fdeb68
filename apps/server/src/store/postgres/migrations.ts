import type pg from "pg";
import type { Logger } from "pino";
import { assertNotNewer } from "../schema-version.js";
import { inTransaction, type Queryable } from "./transaction.js";

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The schema, in order. Append only: an applied migration is never edited, a change is a new
 * version. Each runs in its own transaction together with its row in plantstore_migrations.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "plants and api_tokens",
    sql: `
      CREATE TABLE plants (
        id         bigint PRIMARY KEY,
        name       text NOT NULL,
        tag        text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_tokens (
        id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        hash       bytea NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
        label      text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
    `,
  },
  {
    version: 2,
    name: "plants by tag",
    // Pages of one tag in id order (GET /plants?tag=…): keyset pagination stays an index range.
    sql: "CREATE INDEX plants_tag_id ON plants (tag, id);",
  },
  {
    version: 3,
    name: "token scopes",
    // What each token may do; tokens made before scopes existed keep every scope.
    sql: "ALTER TABLE api_tokens ADD COLUMN scopes text NOT NULL DEFAULT 'plants:read plants:write metrics:read';",
  },
  {
    version: 4,
    name: "webhooks",
    // Where events go, the events (the outbox, written in the plant change's own transaction) and
    // one delivery per event and endpoint. Times in epoch milliseconds, as on SQLite.
    sql: `
      CREATE TABLE webhook_endpoints (
        id              integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        url             text NOT NULL,
        secret          text NOT NULL,
        previous_secret text,
        previous_until  bigint,
        events          text NOT NULL,
        source          text NOT NULL,
        created_at      bigint NOT NULL,
        disabled_at     bigint,
        disabled_reason text
      );
      CREATE TABLE webhook_events (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id   text NOT NULL UNIQUE,
        type       text NOT NULL,
        body       text NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event           bigint NOT NULL REFERENCES webhook_events (id),
        endpoint        integer NOT NULL REFERENCES webhook_endpoints (id),
        state           text NOT NULL DEFAULT 'pending',
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at bigint NOT NULL,
        lease_until     bigint,
        lease_owner     text,
        last_status     integer,
        last_error      text,
        finished_at     bigint
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event);
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint, state);
      CREATE INDEX webhook_events_created ON webhook_events (created_at);
    `,
  },
  {
    version: 5,
    name: "webhook claim indexes",
    // A claim reads each endpoint's oldest due deliveries: one range of (endpoint, state,
    // next_attempt_at, id), as long as what it returns (plus the few leased rows it skips) however
    // large the backlog; the same index serves removing an endpoint's deliveries. The worker's wait
    // reads the leased rows, which are few. Prunes go in id order, so the indexes by due time alone,
    // by endpoint alone and by creation time go: each cost every create a write.
    sql: `
      DROP INDEX webhook_deliveries_due;
      DROP INDEX webhook_deliveries_endpoint;
      DROP INDEX webhook_events_created;
      CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint, state, next_attempt_at, id);
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: "webhook deliveries carry their event",
    // One row per delivery, carrying its event (webhook id, type, body, time): a create with an
    // endpoint writes one row and its index entries instead of an event row, a delivery row and the
    // index joining them (the event's body is repeated per endpoint; most have one or two). Dropping
    // the event column drops its index and foreign key; delivery ids stay as they were.
    sql: `
      ALTER TABLE webhook_deliveries
        ADD COLUMN event_id text, ADD COLUMN type text, ADD COLUMN body text, ADD COLUMN created_at bigint;
      UPDATE webhook_deliveries d
        SET event_id = e.event_id, type = e.type, body = e.body, created_at = e.created_at
        FROM webhook_events e WHERE e.id = d.event;
      ALTER TABLE webhook_deliveries
        ALTER COLUMN event_id SET NOT NULL, ALTER COLUMN type SET NOT NULL,
        ALTER COLUMN body SET NOT NULL, ALTER COLUMN created_at SET NOT NULL,
        DROP COLUMN event;
      DROP TABLE webhook_events;
    `,
  },
  {
    version: 7,
    name: "oldest pending webhook delivery index",
    // The oldest pending delivery (plantstore_webhook_oldest_pending_seconds, read at every scrape):
    // one index step, where the query read every pending row (a dead endpoint's backlog grows
    // without bound). Only pending rows are in it.
    sql: "CREATE INDEX webhook_deliveries_pending_created ON webhook_deliveries (created_at) WHERE state = 'pending';",
  },
  {
    version: 8,
    name: "token changes counted",
    // Every insert or change of a token takes the next version, kept in the row (changed), so that
    // a running server reads only the rows changed since it last looked (the refresh read every
    // active token every second). A trigger, so that every writer counts, an older server's admin
    // command included. Taking the version locks the one state row until commit, so versions
    // become visible in order: a reader that has seen version n has seen every change up to n.
    // tokens_held: this store has held a token at some time (stored, or PLANTSTORE_TOKENS); a
    // first-run token is made only on a store that has not, so that revoking every token never
    // mints a new one at the next start.
    sql: `
      CREATE TABLE api_token_state (
        only_row    boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        version     bigint NOT NULL,
        tokens_held boolean NOT NULL
      );
      INSERT INTO api_token_state (version, tokens_held) SELECT coalesce(max(id), 0), count(*) > 0 FROM api_tokens;
      ALTER TABLE api_tokens ADD COLUMN changed bigint NOT NULL DEFAULT 0;
      UPDATE api_tokens SET changed = id;
      CREATE INDEX api_tokens_changed ON api_tokens (changed);
      CREATE FUNCTION api_tokens_count_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        UPDATE api_token_state SET version = version + 1, tokens_held = true RETURNING version INTO NEW.changed;
        RETURN NEW;
      END
      $$;
      CREATE TRIGGER api_tokens_count_change BEFORE INSERT OR UPDATE OF hash, label, scopes, revoked_at ON api_tokens
        FOR EACH ROW EXECUTE FUNCTION api_tokens_count_change();
    `,
  },
  {
    version: 9,
    name: "change log",
    // One row per committed change (created, updated, deleted), written in the change's own
    // transaction: its position, the plant's version and its event's body (what webhooks send and
    // GET /plants/changes streams). Positions come from the one row of plant_change_head, updated
    // last in the committing transaction: its row lock is held until COMMIT, so positions are taken
    // in commit order and a reader that has seen position n has seen every position below it (see
    // docs/architecture.md, "The change log"). Pruned oldest first by the primary key alone.
    sql: `
      CREATE TABLE plant_change_head (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        position bigint NOT NULL
      );
      INSERT INTO plant_change_head (position) VALUES (0);
      CREATE TABLE plant_changes (
        position   bigint PRIMARY KEY,
        type       text NOT NULL,
        version    text NOT NULL,
        created_at bigint NOT NULL,
        body       text NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: "plants by name prefix",
    // Finding plants by a name prefix (GET /plants?name=…): the name key, lower(name) under the "C"
    // collation (A–Z folded and nothing else, as SQLite's lower() does, whatever the database's
    // locale), in code point order; a prefix is a range of it. By name alone, and within a tag.
    sql: `
      CREATE INDEX plants_name_prefix ON plants (lower(name COLLATE "C"), id);
      CREATE INDEX plants_tag_name_prefix ON plants (tag, lower(name COLLATE "C"), id);
    `,
  },
];

/** Advisory-lock class ids ("PLNT" and one more), paired with a hash of the schema name. */
const MIGRATION_LOCK_CLASS = 0x504c4e54;
// 0x504c4e55 was the first-run token's lock (now the api_token_state row's lock): not reused, so
// that an older instance taking it never meets another use.
export const WEBHOOK_LOCK_CLASS = 0x504c4e56;

/**
 * The second half of every advisory-lock key: the schema the tables live in, so that instances
 * sharing a schema serialize while independent schemas (e.g. parallel test runs) do not.
 */
export const SCHEMA_LOCK_KEY = "hashtext(coalesce(current_schema(), ''))";

/**
 * Applies pending migrations, one transaction per migration: each takes a transaction-scoped
 * advisory lock (released by its own COMMIT or ROLLBACK, and with its session if this process dies),
 * reads what is applied, and applies the next one with its row in plantstore_migrations. Several
 * instances starting at once migrate exactly once: one applies a step while the others wait on the
 * lock, then find it done. No lock outlives its transaction, so this holds behind PgBouncer in
 * transaction mode, where consecutive transactions may run on different server connections.
 * A schema newer than this code stops the start (SchemaNewerError). `through` stops at a version
 * (tests build an older schema to upgrade from).
 */
export async function applyMigrations(
  pool: pg.Pool,
  logger: Logger,
  through = Number.POSITIVE_INFINITY,
): Promise<void> {
  for (;;) {
    const applied = await inTransaction(pool, (client) => applyNextMigration(client, through));
    if (applied === undefined) return;
    logger.info({ version: applied.version, name: applied.name }, "applied database migration");
  }
}

/** The newest version this code knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Applies the first pending migration, under the lock; undefined when none is pending. */
async function applyNextMigration(client: Queryable, through: number): Promise<Migration | undefined> {
  const schema = await client.query<{ schema: string | null }>("SELECT current_schema() AS schema");
  if (!schema.rows[0]?.schema) {
    throw new Error(
      "PostgreSQL has no schema to create tables in: the search_path names no existing schema (create it, or fix options=-c search_path=…)",
    );
  }
  await client.query(`SELECT pg_advisory_xact_lock($1, ${SCHEMA_LOCK_KEY})`, [MIGRATION_LOCK_CLASS]);
  await client.query(
    `CREATE TABLE IF NOT EXISTS plantstore_migrations (
       version    integer PRIMARY KEY,
       name       text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const applied = await client.query<{ version: number }>("SELECT version FROM plantstore_migrations");
  const done = new Set(applied.rows.map((row) => row.version));
  assertNotNewer(Math.max(0, ...done), SCHEMA_VERSION);
  const next = MIGRATIONS.find((migration) => !done.has(migration.version) && migration.version <= through);
  if (next === undefined) return undefined;
  await client.query(next.sql);
  await client.query("INSERT INTO plantstore_migrations (version, name) VALUES ($1, $2)", [next.version, next.name]);
  return next;
}
