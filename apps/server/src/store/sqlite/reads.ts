import type { Database, Statement } from "better-sqlite3";
import { countSql, pageSql, scanSql, type Dialect } from "../plant-queries.js";
import type { PageQuery, PlantFilter } from "../storage.js";
import type { PlantRow } from "../plant-row.js";
import { deliveriesSql, type DeliveryRow, type EndpointRow } from "../webhook-rows.js";
import { CHANGE_BOUNDS_SQL, changesAfterSql, type ChangeRow } from "../change-rows.js";
import { packPage, type PackedPage } from "./plant-pages.js";

/** A token row as the verifier's refresh reads it (see SqliteTokenRepository.changesSince). */
export interface ChangedTokenRow {
  hash: Uint8Array;
  scopes: string;
  active: 0 | 1;
  changed: number;
}

export interface TokenRow {
  id: number;
  label: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * When the oldest event not yet delivered happened: the first entry of
 * webhook_deliveries_pending_created. The statement a test checks the plan of.
 */
export const OLDEST_PENDING_SQL = "SELECT min(created_at) AS created FROM webhook_deliveries WHERE state = 'pending'";

const PLANT_COLUMNS = "SELECT id, name, tag FROM plants";
const TOKEN_COLUMNS = "id, label, scopes, created_at, revoked_at";
const CHANGED_TOKEN_COLUMNS = "hash, scopes, revoked_at IS NULL AS active, changed";

/** A row of a scanned page (scanSql): whether the plant matched, and its place in the window. */
export interface ScannedRow extends PlantRow {
  matched: bigint;
  n: bigint;
}

/** A scanned page packed for the crossing (see PackedPage): the matching plants, and where the window ended. */
export interface PackedScan {
  page: PackedPage;
  windowEnd?: bigint;
}

/** SQLite's dialect of plant-queries.ts: named parameters (`@p1`…), the name key as its indexes have it. */
export class SqliteDialect implements Dialect {
  readonly nameKey = "lower(name)";
  readonly params: Record<string, unknown> = {};
  private count = 0;

  param(value: unknown): string {
    const name = `p${++this.count}`;
    this.params[name] = value;
    return `@${name}`;
  }

  /** The planner, without statistics, prefers (tag, id) to a key range: name queries say their index. */
  indexedBy(filter: PlantFilter): string {
    return filter.tag === undefined ? "plants_name_prefix" : "plants_tag_name_prefix";
  }
}

/**
 * Every read the server makes of a SQLite file, as statements on one connection: the reader
 * thread's (reader-thread.ts), or the only connection of `sqlite::memory:`. Each returns plain rows
 * (they cross a thread boundary); the repositories turn them into what the rest of the server uses.
 */
export class SqliteReads {
  private readonly plantById: Statement<[bigint], PlantRow>;
  /** The statements of pages and counts, one per shape (plant-queries.ts), prepared at first use. */
  private readonly plantQueries = new Map<string, Statement<[Record<string, unknown>], unknown>>();
  private readonly countPlants: Statement<[], { n: number }>;
  private readonly tokenVersion: Statement<[], { version: number }>;
  private readonly activeTokens: Statement<[], ChangedTokenRow>;
  private readonly changedTokens: Statement<[number], ChangedTokenRow>;
  private readonly allTokens: Statement<[], TokenRow>;
  private readonly nextUnleased: Statement<[], { due: number | null }>;
  private readonly nextLeaseEnd: Statement<[], { due: number | null }>;
  private readonly oldestPending: Statement<[], { created: number | null }>;
  private readonly endpoints: Statement<[], EndpointRow>;
  private readonly deliveries: Statement<[number], DeliveryRow>;
  private readonly failedDeliveries: Statement<[number], DeliveryRow>;
  private readonly schema: Statement<[], unknown>;
  private readonly changesAfter: Statement<[bigint, number], ChangeRow>;
  private readonly changeBoundsRow: Statement<[], { first: bigint | null; last: bigint }>;

  constructor(private readonly db: Database) {
    // safeIntegers: plant ids come back as exact bigints, never as doubles.
    const plants = <P extends unknown[]>(sql: string) => db.prepare<P, PlantRow>(sql).safeIntegers(true);
    this.plantById = plants(`${PLANT_COLUMNS} WHERE id = ?`);
    this.countPlants = db.prepare("SELECT count(*) AS n FROM plants");
    this.tokenVersion = db.prepare("SELECT version FROM api_token_state");
    this.activeTokens = db.prepare(`SELECT ${CHANGED_TOKEN_COLUMNS} FROM api_tokens WHERE revoked_at IS NULL`);
    this.changedTokens = db.prepare(`SELECT ${CHANGED_TOKEN_COLUMNS} FROM api_tokens WHERE changed > ?`);
    this.allTokens = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY id`);
    // A pending delivery is due at its next attempt, or when its lease runs out if it is leased: the
    // earliest unleased one is first in its endpoint's range, and the leased are few. A disabled
    // endpoint's pending deliveries (its URL left the configuration) wait, due never.
    this.nextUnleased = db.prepare(
      `SELECT min((SELECT d.next_attempt_at FROM webhook_deliveries d
                   WHERE d.endpoint = p.id AND d.state = 'pending' AND d.lease_until IS NULL
                   ORDER BY d.next_attempt_at LIMIT 1)) AS due FROM webhook_endpoints p WHERE p.disabled_at IS NULL`,
    );
    this.nextLeaseEnd = db.prepare(
      `SELECT min(max(d.next_attempt_at, d.lease_until)) AS due FROM webhook_deliveries d
       JOIN webhook_endpoints p ON p.id = d.endpoint
       WHERE d.lease_until IS NOT NULL AND d.state = 'pending' AND p.disabled_at IS NULL`,
    );
    this.oldestPending = db.prepare(OLDEST_PENDING_SQL);
    this.endpoints = db.prepare(
      "SELECT id, url, events, source, created_at, disabled_at, disabled_reason FROM webhook_endpoints ORDER BY id",
    );
    this.deliveries = db.prepare(deliveriesSql(false, "?"));
    this.failedDeliveries = db.prepare(deliveriesSql(true, "?"));
    this.changesAfter = db.prepare<[bigint, number], ChangeRow>(changesAfterSql("?", "?")).safeIntegers(true);
    this.changeBoundsRow = db.prepare<[], { first: bigint | null; last: bigint }>(CHANGE_BOUNDS_SQL).safeIntegers(true);
    // A read of the file itself (SELECT 1 alone would not touch it).
    this.schema = db.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
  }

  plant(id: bigint): PlantRow | undefined {
    return this.plantById.get(id);
  }

  page(query: PageQuery): PackedPage {
    return packPage(this.plantQuery<PlantRow>((dialect) => pageSql(dialect, query)));
  }

  scan(query: PageQuery & { name: string }, window: number): PackedScan {
    const rows = this.plantQuery<ScannedRow>((dialect) => scanSql(dialect, query, window));
    const end = rows.find((row) => row.n === BigInt(window));
    const page = packPage(rows.filter((row) => row.matched === 1n));
    return end === undefined ? { page } : { page, windowEnd: end.id };
  }

  countUpTo(filter: PlantFilter, upTo: number): number {
    const [row] = this.plantQuery<{ n: bigint }>((dialect) => countSql(dialect, filter, upTo));
    return Number(row!.n);
  }

  /** Runs the statement `build` writes (prepared once per shape); ids and numbers come back as bigints. */
  private plantQuery<Row>(build: (dialect: Dialect) => string): Row[] {
    const dialect = new SqliteDialect();
    const sql = build(dialect);
    let statement = this.plantQueries.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<[Record<string, unknown>], unknown>(sql).safeIntegers(true);
      this.plantQueries.set(sql, statement);
    }
    return statement.all(dialect.params) as Row[];
  }

  plantCount(): number {
    return this.countPlants.get()!.n;
  }

  /** The token table's version, and the rows changed since `since` (all active ones when `complete`). */
  tokenChanges(since: number | undefined): { version: number; complete: boolean; rows: ChangedTokenRow[] } {
    const { version } = this.tokenVersion.get()!;
    if (since === version) return { version, complete: false, rows: [] };
    if (since === undefined || version < since) return { version, complete: true, rows: this.activeTokens.all() };
    return { version, complete: false, rows: this.changedTokens.all(since) };
  }

  tokens(): TokenRow[] {
    return this.allTokens.all();
  }

  /** The earliest time (ms since the epoch) a delivery is due, or null when none is. */
  nextDue(): number | null {
    const dues = [this.nextUnleased.get()?.due, this.nextLeaseEnd.get()?.due].filter((due) => due != null);
    return dues.length === 0 ? null : Math.min(...dues);
  }

  /** When the oldest pending event was created (ms since the epoch), or null when none is pending. */
  oldestPendingCreated(): number | null {
    return this.oldestPending.get()?.created ?? null;
  }

  webhookEndpoints(): EndpointRow[] {
    return this.endpoints.all();
  }

  webhookDeliveries(failedOnly: boolean, limit: number): DeliveryRow[] {
    return (failedOnly ? this.failedDeliveries : this.deliveries).all(limit);
  }

  /** Up to `limit` changes after `cursor`, in position order (positions exact: bigints). */
  changes(cursor: bigint, limit: number): ChangeRow[] {
    return this.changesAfter.all(cursor, limit);
  }

  /** The oldest position kept (null: none) and the newest given. */
  changeBounds(): { first: bigint | null; last: bigint } {
    return this.changeBoundsRow.get()!;
  }

  /** Throws when the file cannot be read now. */
  readable(): true {
    this.schema.get();
    return true;
  }
}
