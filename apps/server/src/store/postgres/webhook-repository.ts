import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@plantstore/contract";
import type * as Storage from "../storage.js";
import {
  deliveriesSql,
  deliveryFromRow,
  dueDeliveryFromRow,
  endpointFromRow,
  eventsToColumn,
  GONE_REASON,
  planConfigured,
  UNCONFIGURED_REASON,
  type ClaimedRow,
  type ConfiguredRow,
  type DeliveryRow,
  type EndpointRow,
} from "../webhook-rows.js";
import type { PostgresDatabase } from "./database.js";
import { NOW_MS } from "./group-commit.js";
import { SCHEMA_LOCK_KEY, WEBHOOK_LOCK_CLASS } from "./migrations.js";
import type { Queryable } from "./transaction.js";

const ENDPOINT_COLUMNS = "id, url, events, source, created_at, disabled_at, disabled_reason";

/**
 * Leases the due deliveries no one holds, endpoint by endpoint: each endpoint's oldest due rows are a
 * range of webhook_deliveries_endpoint_due, so a claim costs what it returns, not the backlog, and an
 * endpoint with thousands due never hides another's. `FOR UPDATE SKIP LOCKED` lets several instances
 * claim at once without waiting for or taking each other's rows, and the lease (`lease_until`, in the
 * database's time) keeps a delivery one instance's until it settles it or the lease runs out (the
 * instance died): then another takes it over. An endpoint gets at most `perEndpoint` in flight,
 * counting what this instance already has in flight for it ($1, $6).
 */
const CLAIM_SQL = `
  WITH chosen AS (
    SELECT due.id
    FROM webhook_endpoints p
    LEFT JOIN unnest($1::int[], $6::int[]) AS b(endpoint, in_flight) ON b.endpoint = p.id
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at
      FROM webhook_deliveries d
      WHERE d.endpoint = p.id AND d.state = 'pending' AND d.next_attempt_at <= ${NOW_MS}
        AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS})
        AND d.id <> ALL($7::bigint[])
      ORDER BY d.next_attempt_at, d.id
      LIMIT greatest(0, $3 - coalesce(b.in_flight, 0))
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE p.disabled_at IS NULL
    ORDER BY due.next_attempt_at, due.id
    LIMIT $2
  )
  UPDATE webhook_deliveries d
  SET lease_until = ${NOW_MS} + $4, lease_owner = $5, attempts = d.attempts + 1
  FROM chosen, webhook_endpoints p
  WHERE d.id = chosen.id AND p.id = d.endpoint
  RETURNING d.id, d.attempts, d.endpoint, d.event_id, d.type, d.body, p.url, p.secret,
            CASE WHEN p.previous_until > ${NOW_MS} THEN p.previous_secret END AS previous_secret`;

/** Only the lease holder settles a delivery (a settle after the lease passed to another is dropped). */
const MINE = "id = $1 AND lease_owner = $2 AND state = 'pending'";

/** Webhooks on PostgreSQL: the same tables and rules as on SQLite; times from the database's clock. */
/**
 * A prune step: delivered deliveries of events old enough, oldest first, `limit` of them; rows
 * another instance is pruning are skipped. A range of webhook_deliveries_delivered_created, as long
 * as what it deletes however many deliveries are kept; the ids then go as an array, looked up by the
 * primary key (with `id IN (…)` the planner may hash-join a batch against a sequential scan of every
 * delivery: 1.4 s for 10,000 at 1 M kept). The statement a test checks the plan of.
 */
export const PRUNE_SQL = `DELETE FROM webhook_deliveries WHERE id = ANY (ARRAY (
  SELECT id FROM webhook_deliveries WHERE state = 'delivered' AND created_at < $1
  ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED))`;

export class PostgresWebhookRepository implements Storage.WebhookRepository {
  constructor(private readonly db: PostgresDatabase) {}

  msUntilNextDue(): Promise<number | undefined> {
    return this.db.run("next webhook due", async (pool) => {
      const result = await pool.query<{ wait: bigint | null }>(
        // A pending delivery is due at its next attempt, or when its lease runs out if it is leased:
        // the earliest unleased one is first in its endpoint's range, and the leased are few. A
        // disabled endpoint's pending deliveries (its URL left the configuration) wait, due never.
        `SELECT least(
           (SELECT min((SELECT d.next_attempt_at FROM webhook_deliveries d
                        WHERE d.endpoint = p.id AND d.state = 'pending' AND d.lease_until IS NULL
                        ORDER BY d.next_attempt_at LIMIT 1)) FROM webhook_endpoints p WHERE p.disabled_at IS NULL),
           (SELECT min(greatest(d.next_attempt_at, d.lease_until)) FROM webhook_deliveries d
            JOIN webhook_endpoints p ON p.id = d.endpoint
            WHERE d.lease_until IS NOT NULL AND d.state = 'pending' AND p.disabled_at IS NULL)
         ) - ${NOW_MS} AS wait`,
      );
      const wait = result.rows[0]?.wait;
      return wait == null ? undefined : Number(wait);
    });
  }

  claimDue(claim: Storage.Claim): Promise<Storage.DueDelivery[]> {
    return this.db.write("claim webhook deliveries", async (client) => {
      const result = await client.query<ClaimedRow>(CLAIM_SQL, [
        claim.busy.map(([endpoint]) => endpoint),
        claim.limit,
        claim.perEndpoint,
        claim.leaseMs,
        claim.owner,
        claim.busy.map(([, inFlight]) => inFlight),
        claim.holding,
      ]);
      return result.rows.map(dueDeliveryFromRow);
    });
  }

  settle(delivery: number, owner: string, result: Storage.AttemptResult): Promise<void> {
    const status = "status" in result ? (result.status ?? null) : null;
    const error = "error" in result ? (result.error ?? null) : null;
    return this.db.write("settle webhook delivery", async (client) => {
      switch (result.kind) {
        case "delivered":
        case "failed":
          await client.query(
            `UPDATE webhook_deliveries SET state = $3, lease_until = NULL, lease_owner = NULL, last_status = $4,
               last_error = $5, finished_at = ${NOW_MS} WHERE ${MINE}`,
            [delivery, owner, result.kind, status, error],
          );
          return;
        case "retry":
          await client.query(
            `UPDATE webhook_deliveries SET next_attempt_at = ${NOW_MS} + $3, lease_until = NULL, lease_owner = NULL,
               last_status = $4, last_error = $5 WHERE ${MINE}`,
            [delivery, owner, Math.round(result.delayMs), status, error],
          );
          return;
        case "endpoint-gone": {
          const found = await client.query<{ endpoint: number }>(
            `SELECT endpoint FROM webhook_deliveries WHERE ${MINE}`,
            [delivery, owner],
          );
          const endpoint = found.rows[0]?.endpoint;
          if (endpoint === undefined) return;
          await client.query(
            `UPDATE webhook_endpoints SET disabled_at = ${NOW_MS}, disabled_reason = $2 WHERE id = $1`,
            [endpoint, GONE_REASON],
          );
          await client.query(
            `UPDATE webhook_deliveries SET state = 'failed', lease_until = NULL, lease_owner = NULL,
               last_status = CASE WHEN id = $2 THEN $3 ELSE last_status END, last_error = $4, finished_at = ${NOW_MS}
             WHERE endpoint = $1 AND state = 'pending'`,
            [endpoint, delivery, status, GONE_REASON],
          );
          return;
        }
      }
    });
  }

  oldestPendingAgeSeconds(): Promise<number> {
    return this.db.run("oldest pending webhook", async (pool) => {
      const result = await pool.query<{ age: bigint | null }>(
        // The first entry of webhook_deliveries_pending_created.
        `SELECT ${NOW_MS} - min(created_at) AS age FROM webhook_deliveries WHERE state = 'pending'`,
      );
      const age = result.rows[0]?.age;
      return age == null ? 0 : Math.max(0, Number(age) / 1000);
    });
  }

  prune(before: number, limit: number): Promise<number> {
    return this.db.write("prune webhook deliveries", async (client) => {
      const result = await client.query(PRUNE_SQL, [before, limit]);
      return result.rowCount ?? 0;
    });
  }

  addEndpoint(url: string, events: readonly WebhookEventType[], secret: string): Promise<Storage.WebhookEndpoint> {
    return this.db.write("add webhook endpoint", async (client) =>
      endpointFromRow(await insertEndpoint(client, url, events, secret, "admin")),
    );
  }

  listEndpoints(): Promise<Storage.WebhookEndpoint[]> {
    return this.db.run("list webhook endpoints", async (pool) => {
      const result = await pool.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY id`);
      return result.rows.map(endpointFromRow);
    });
  }

  removeEndpoint(endpoint: number): Promise<boolean> {
    if (!isInt4(endpoint)) return Promise.resolve(false);
    return this.db.write("remove webhook endpoint", (client) => removeEndpoint(client, endpoint));
  }

  rotateSecret(endpoint: number, secret: string, overlapUntil: number): Promise<boolean> {
    if (!isInt4(endpoint)) return Promise.resolve(false);
    return this.db.write("rotate webhook secret", (client) => rotateSecret(client, endpoint, secret, overlapUntil));
  }

  syncConfigured(urls: readonly string[], secret: string, overlapUntil: number): Promise<Storage.ConfiguredChanges> {
    // Instances starting at once must not each add the configured endpoints: an advisory lock
    // makes the read-then-write one step across every instance on this schema.
    return this.db.write("sync configured webhook endpoints", async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock($1, ${SCHEMA_LOCK_KEY})`, [WEBHOOK_LOCK_CLASS]);
      const rows = (
        await client.query<ConfiguredRow>(
          "SELECT id, url, secret, disabled_reason FROM webhook_endpoints WHERE source = 'config' ORDER BY id",
        )
      ).rows;
      const plan = planConfigured(rows, urls, secret);
      const named = ({ id, url }: { id: number; url: string }) => ({ id, url });
      const disabled: Storage.ConfiguredChanges["disabled"] = [];
      for (const row of plan.disable) {
        await client.query(`UPDATE webhook_endpoints SET disabled_at = ${NOW_MS}, disabled_reason = $2 WHERE id = $1`, [
          row.id,
          UNCONFIGURED_REASON,
        ]);
        const backlog = await client.query<{ pending: number; failed: number }>(
          `SELECT (count(*) FILTER (WHERE state = 'pending'))::int AS pending,
                    (count(*) FILTER (WHERE state = 'failed'))::int AS failed
             FROM webhook_deliveries WHERE endpoint = $1`,
          [row.id],
        );
        disabled.push({ ...named(row), ...backlog.rows[0]! });
      }
      for (const { id } of plan.resume) {
        await client.query("UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE id = $1", [
          id,
        ]);
      }
      for (const { id } of plan.rotate) await rotateSecret(client, id, secret, overlapUntil);
      // Configured endpoints get every event type, those added since they were configured too.
      await client.query("UPDATE webhook_endpoints SET events = $1 WHERE source = 'config' AND events <> $1", [
        eventsToColumn(WEBHOOK_EVENT_TYPES),
      ]);
      const added: Storage.ConfiguredEndpoint[] = [];
      for (const url of plan.add) {
        added.push(named(await insertEndpoint(client, url, WEBHOOK_EVENT_TYPES, secret, "config")));
      }
      return {
        wasConfigured: rows.length > 0,
        added,
        resumed: plan.resume.map(named),
        disabled,
        rotated: plan.rotate.map(named),
      };
    });
  }

  listDeliveries({ failedOnly, limit }: { failedOnly: boolean; limit: number }): Promise<Storage.DeliveryInfo[]> {
    return this.db.run("list webhook deliveries", async (pool) => {
      const result = await pool.query<DeliveryRow>(deliveriesSql(failedOnly, "$1"), [limit]);
      return result.rows.map(deliveryFromRow);
    });
  }

  redeliver(delivery: number): Promise<boolean> {
    if (!Number.isSafeInteger(delivery) || delivery < 1) return Promise.resolve(false);
    return this.db.write("redeliver webhook", async (client) => {
      const result = await client.query(
        `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ${NOW_MS}, lease_until = NULL,
           lease_owner = NULL, last_status = NULL, last_error = NULL, finished_at = NULL
         WHERE id = $1 AND state <> 'pending'
           AND endpoint IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)`,
        [delivery],
      );
      return result.rowCount === 1;
    });
  }
}

/** Endpoint ids are int4 identities: anything else names no endpoint (and must not become a range error). */
function isInt4(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= 2 ** 31 - 1;
}

async function insertEndpoint(
  client: Queryable,
  url: string,
  events: readonly WebhookEventType[],
  secret: string,
  source: Storage.WebhookEndpoint["source"],
): Promise<EndpointRow> {
  const result = await client.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (url, secret, events, source, created_at) VALUES ($1, $2, $3, $4, ${NOW_MS})
     RETURNING ${ENDPOINT_COLUMNS}`,
    [url, secret, eventsToColumn(events), source],
  );
  return result.rows[0]!;
}

async function rotateSecret(
  client: Queryable,
  endpoint: number,
  secret: string,
  overlapUntil: number,
): Promise<boolean> {
  const result = await client.query(
    "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $3, secret = $2 WHERE id = $1",
    [endpoint, secret, overlapUntil],
  );
  return result.rowCount === 1;
}

async function removeEndpoint(client: Queryable, endpoint: number): Promise<boolean> {
  await client.query("DELETE FROM webhook_deliveries WHERE endpoint = $1", [endpoint]);
  return (await client.query("DELETE FROM webhook_endpoints WHERE id = $1", [endpoint])).rowCount === 1;
}
