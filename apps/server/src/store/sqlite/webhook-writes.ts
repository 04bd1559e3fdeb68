import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import type { AttemptResult, Claim, ConfiguredChanges, DueDelivery, WebhookEndpoint } from "../storage.js";
import {
  dueDeliveryFromRow,
  endpointFromRow,
  eventsToColumn,
  GONE_REASON,
  newEventId,
  planConfigured,
  UNCONFIGURED_REASON,
  type ClaimedRow,
  type ConfiguredRow,
  type EndpointRow,
} from "../webhook-rows.js";

/** A webhook write, run on the writer thread like every other write (SQLite has one writer). */
export type WebhookWrite =
  | { kind: "claim"; claim: Claim }
  | { kind: "settle"; delivery: number; owner: string; result: AttemptResult }
  | { kind: "prune"; before: number; limit: number }
  | { kind: "add-endpoint"; url: string; events: WebhookEventType[]; secret: string }
  | { kind: "remove-endpoint"; endpoint: number }
  | { kind: "rotate-secret"; endpoint: number; secret: string; overlapUntil: number }
  | { kind: "sync-configured"; urls: string[]; secret: string; overlapUntil: number }
  | { kind: "redeliver"; delivery: number };

/**
 * A plant change succeeded but its event could not be written (the disk is full, say). The change
 * must not commit without its event, and it has no savepoint of its own (a savepoint per change cost
 * a create with an endpoint about as much as its event's row): its whole batch fails, rolled back.
 * Such a failure is the database's, not the write's, and would fail the commit anyway.
 */
export class EventNotWritten extends Error {
  override readonly name = "EventNotWritten";
  constructor(override readonly cause: unknown) {
    super("a plant change's entry in the change log or its webhook event could not be written", { cause });
  }
}

/** What the claim's UPDATE returns: the delivery with its event; the endpoint's secrets come with a second read. */
type LeasedRow = Pick<ClaimedRow, "id" | "event_id" | "type" | "body" | "endpoint" | "attempts">;

/**
 * The webhook statements of the writer thread. Events are written in the transaction of the plant
 * change that caused them (the outbox), as one delivery row per endpoint subscribed at that moment,
 * each carrying the event; an event no endpoint wants is not written at all. The same model as on
 * PostgreSQL: every event is a delivery row from its commit on.
 */
export class WebhookWrites {
  private readonly activeEndpoints: Statement<[], { id: number; events: string }>;
  private readonly insertDelivery: Statement<[string, string, string, number, number, number]>;
  private readonly dueOfEndpoint: Statement<
    { endpoint: number; now: number; holding: string; limit: number },
    { id: number; next_attempt_at: number }
  >;
  private readonly lease: Statement<{ id: number; leaseUntil: number; owner: string }, LeasedRow>;
  private readonly endpointSecrets: Statement<[number, number], Pick<ClaimedRow, "url" | "secret" | "previous_secret">>;
  /** An attempt's result, for the lease holder only: every attempt records one (the rarer writes prepare as they go). */
  private readonly finish: Statement<{
    state: "delivered" | "failed";
    status: number | null;
    error: string | null;
    now: number;
    delivery: number;
    owner: string;
  }>;
  private readonly reschedule: Statement<{
    next: number;
    status: number | null;
    error: string | null;
    delivery: number;
    owner: string;
  }>;
  /**
   * The endpoints subscribed to each event type: read at a batch's first event, and again after a
   * write in the batch adds, removes or disables an endpoint (see endpointsChanged).
   */
  private subscribers: Map<string, number[]> | undefined;

  constructor(private readonly db: Database) {
    this.activeEndpoints = db.prepare("SELECT id, events FROM webhook_endpoints WHERE disabled_at IS NULL");
    this.insertDelivery = db.prepare(
      "INSERT INTO webhook_deliveries (event_id, type, body, created_at, endpoint, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    // An endpoint's due deliveries that no one holds (or whose lease ran out), oldest first: a range
    // of webhook_deliveries_endpoint_due that skips only the few leased rows at its start.
    this.dueOfEndpoint = db.prepare(`
      SELECT id, next_attempt_at FROM webhook_deliveries
      WHERE endpoint = :endpoint AND state = 'pending' AND next_attempt_at <= :now
        AND (lease_until IS NULL OR lease_until <= :now)
        AND id NOT IN (SELECT value FROM json_each(:holding))
      ORDER BY next_attempt_at, id LIMIT :limit`);
    this.lease = db.prepare(`
      UPDATE webhook_deliveries SET lease_until = :leaseUntil, lease_owner = :owner, attempts = attempts + 1
      WHERE id = :id RETURNING id, event_id, type, body, endpoint, attempts`);
    this.endpointSecrets = db.prepare(`
      SELECT url, secret, CASE WHEN previous_until > ? THEN previous_secret END AS previous_secret
      FROM webhook_endpoints WHERE id = ?`);
    const mine = "id = :delivery AND lease_owner = :owner AND state = 'pending'";
    this.finish = db.prepare(`
      UPDATE webhook_deliveries SET state = :state, lease_until = NULL, lease_owner = NULL,
        last_status = :status, last_error = :error, finished_at = :now WHERE ${mine}`);
    this.reschedule = db.prepare(`
      UPDATE webhook_deliveries SET next_attempt_at = :next, lease_until = NULL, lease_owner = NULL,
        last_status = :status, last_error = :error WHERE ${mine}`);
  }

  /** Called at the start of every batch: endpoints may have changed since the last one. */
  beginBatch(): void {
    this.subscribers = undefined;
  }

  /**
   * Writes the event of a plant change that succeeded (its body, as the change log wrote it), one
   * delivery per subscribed endpoint; returns how many deliveries.
   */
  recordEvent(type: WebhookEventType, body: string, now: number): number {
    this.subscribers ??= this.readSubscribers();
    const endpoints = this.subscribers.get(type);
    if (endpoints === undefined || endpoints.length === 0) return 0;
    const eventId = newEventId();
    for (const endpoint of endpoints) this.insertDelivery.run(eventId, type, body, now, endpoint, now);
    return endpoints.length;
  }

  run(write: WebhookWrite, now: number): unknown {
    switch (write.kind) {
      case "claim":
        return this.claim(write.claim, now);
      case "settle":
        return this.settle(write.delivery, write.owner, write.result, now);
      case "prune":
        return this.prune(write.before, write.limit);
      case "add-endpoint":
        return this.addEndpoint(write.url, write.events, write.secret, "admin", now);
      case "remove-endpoint":
        return this.removeEndpoint(write.endpoint);
      case "rotate-secret":
        return this.rotateSecret(write.endpoint, write.secret, write.overlapUntil);
      case "sync-configured":
        return this.syncConfigured(write.urls, write.secret, write.overlapUntil, now);
      case "redeliver":
        return (
          this.db
            .prepare(
              `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, lease_until = NULL,
                 lease_owner = NULL, last_status = NULL, last_error = NULL, finished_at = NULL
               WHERE id = ? AND state <> 'pending'
                 AND endpoint IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)`,
            )
            .run(now, write.delivery).changes === 1
        );
    }
  }

  /** An endpoint came or went: events later in the batch go to the endpoints as they are now. */
  private endpointsChanged(): void {
    this.subscribers = undefined;
  }

  private readSubscribers(): Map<string, number[]> {
    const subscribers = new Map<string, number[]>();
    for (const { id, events } of this.activeEndpoints.all()) {
      for (const type of events.split(" ")) subscribers.set(type, [...(subscribers.get(type) ?? []), id]);
    }
    return subscribers;
  }

  /**
   * Leases the oldest due deliveries, at most `perEndpoint` in flight per endpoint (counting what the
   * worker already has in flight for it) and `limit` in all. Read endpoint by endpoint, so that its
   * cost follows what it claims, not the backlog: a slow endpoint's thousands of due deliveries are
   * not read again on every claim.
   */
  private claim(claim: Claim, now: number): DueDelivery[] {
    return this.dueDeliveries(claim, now).map(({ id }) => {
      const row = this.lease.get({ id, leaseUntil: now + claim.leaseMs, owner: claim.owner })!;
      return dueDeliveryFromRow({ ...row, ...this.endpointSecrets.get(now, row.endpoint)! });
    });
  }

  /** The oldest due deliveries no one holds, at most `perEndpoint` in flight per endpoint and `limit` in all. */
  private dueDeliveries(claim: Claim, now: number): { id: number; next_attempt_at: number }[] {
    const inFlight = new Map(claim.busy);
    const holding = JSON.stringify(claim.holding);
    const due: { id: number; next_attempt_at: number }[] = [];
    for (const { id: endpoint } of this.activeEndpoints.all()) {
      const limit = Math.min(claim.limit, claim.perEndpoint - (inFlight.get(endpoint) ?? 0));
      if (limit > 0) due.push(...this.dueOfEndpoint.all({ endpoint, now, holding, limit }));
    }
    due.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id);
    return due.slice(0, claim.limit);
  }

  private settle(delivery: number, owner: string, result: AttemptResult, now: number): void {
    const status = "status" in result ? (result.status ?? null) : null;
    const error = "error" in result ? (result.error ?? null) : null;
    switch (result.kind) {
      case "delivered":
      case "failed":
        this.finish.run({ state: result.kind, status, error, now, delivery, owner });
        return;
      case "retry":
        this.reschedule.run({ next: now + result.delayMs, status, error, delivery, owner });
        return;
      case "endpoint-gone": {
        const row = this.db
          .prepare<[number, string], { endpoint: number }>(
            "SELECT endpoint FROM webhook_deliveries WHERE id = ? AND lease_owner = ?",
          )
          .get(delivery, owner);
        if (row === undefined) return;
        this.db
          .prepare("UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ?")
          .run(now, GONE_REASON, row.endpoint);
        this.endpointsChanged();
        this.db
          .prepare(
            `UPDATE webhook_deliveries SET state = 'failed', lease_until = NULL, lease_owner = NULL,
               last_status = CASE WHEN id = :delivery THEN :status ELSE last_status END,
               last_error = :reason, finished_at = :now
             WHERE endpoint = :endpoint AND state = 'pending'`,
          )
          .run({ delivery, status, reason: GONE_REASON, now, endpoint: row.endpoint });
        return;
      }
    }
  }

  private prune(before: number, limit: number): number {
    // Delivered deliveries of events old enough, oldest first (ids follow creation: one writer, one clock).
    return this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE state = 'delivered' AND created_at < ? ORDER BY id LIMIT ?)`,
      )
      .run(before, limit).changes;
  }

  private addEndpoint(
    url: string,
    events: readonly WebhookEventType[],
    secret: string,
    source: WebhookEndpoint["source"],
    now: number,
  ): WebhookEndpoint {
    const row = this.db
      .prepare<[string, string, string, string, number], EndpointRow>(
        `INSERT INTO webhook_endpoints (url, secret, events, source, created_at) VALUES (?, ?, ?, ?, ?)
         RETURNING id, url, events, source, created_at, disabled_at, disabled_reason`,
      )
      .get(url, secret, eventsToColumn(events), source, now)!;
    this.endpointsChanged();
    return endpointFromRow(row);
  }

  private removeEndpoint(endpoint: number): boolean {
    this.db.prepare("DELETE FROM webhook_deliveries WHERE endpoint = ?").run(endpoint);
    this.endpointsChanged();
    return this.db.prepare("DELETE FROM webhook_endpoints WHERE id = ?").run(endpoint).changes === 1;
  }

  private rotateSecret(endpoint: number, secret: string, overlapUntil: number): boolean {
    return (
      this.db
        .prepare("UPDATE webhook_endpoints SET previous_secret = secret, previous_until = ?, secret = ? WHERE id = ?")
        .run(overlapUntil, secret, endpoint).changes === 1
    );
  }

  private syncConfigured(urls: string[], secret: string, overlapUntil: number, now: number): ConfiguredChanges {
    const rows = this.db
      .prepare<[], ConfiguredRow>(
        "SELECT id, url, secret, disabled_reason FROM webhook_endpoints WHERE source = 'config' ORDER BY id",
      )
      .all();
    const plan = planConfigured(rows, urls, secret);
    const setDisabled = this.db.prepare<[number | null, string | null, number]>(
      "UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ?",
    );
    const backlog = this.db.prepare<[number], { pending: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed
       FROM webhook_deliveries WHERE endpoint = ?`,
    );
    for (const { id } of plan.disable) setDisabled.run(now, UNCONFIGURED_REASON, id);
    for (const { id } of plan.resume) setDisabled.run(null, null, id);
    for (const { id } of plan.rotate) this.rotateSecret(id, secret, overlapUntil);
    // Configured endpoints get every event type, those added since they were configured too.
    const allEvents = eventsToColumn(WEBHOOK_EVENT_TYPES);
    this.db
      .prepare<[string, string]>("UPDATE webhook_endpoints SET events = ? WHERE source = 'config' AND events <> ?")
      .run(allEvents, allEvents);
    const added = plan.add.map((url) => this.addEndpoint(url, WEBHOOK_EVENT_TYPES, secret, "config", now));
    this.endpointsChanged();
    const named = ({ id, url }: { id: number; url: string }) => ({ id, url });
    return {
      wasConfigured: rows.length > 0,
      added: added.map(named),
      resumed: plan.resume.map(named),
      disabled: plan.disable.map((row) => ({ ...named(row), ...backlog.get(row.id)! })),
      rotated: plan.rotate.map(named),
    };
  }
}
