import type { WebhookEventType } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import type * as Storage from "../storage.js";
import {
  deliveriesSql,
  deliveryFromRow,
  endpointFromRow,
  type DeliveryRow,
  type EndpointRow,
} from "../webhook-rows.js";
import type { GroupCommit } from "./group-commit.js";

/**
 * When the oldest event not yet delivered happened: the first entry of
 * webhook_deliveries_pending_created. The statement a test checks the plan of.
 */
export const OLDEST_PENDING_SQL = "SELECT min(created_at) AS created FROM webhook_deliveries WHERE state = 'pending'";

/**
 * Webhooks in SQLite. Every write (claims, results, endpoint changes) goes through the group commit
 * to the writer thread, so that no commit's fsync, and no wait for the write lock, ever blocks the
 * event loop; reads use this thread's connection. Times come from this process's clock (one machine).
 */
export class SqliteWebhookRepository implements Storage.WebhookRepository {
  private readonly nextUnleased: Statement<[], { due: number | null }>;
  private readonly nextLeaseEnd: Statement<[], { due: number | null }>;
  private readonly oldestPending: Statement<[], { created: number | null }>;
  private readonly endpoints: Statement<[], EndpointRow>;

  constructor(
    private readonly db: Database,
    private readonly groupCommit: GroupCommit,
  ) {
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
  }

  async msUntilNextDue(): Promise<number | undefined> {
    const dues = [this.nextUnleased.get()?.due, this.nextLeaseEnd.get()?.due].filter((due) => due != null);
    return dues.length === 0 ? undefined : Math.min(...dues) - Date.now();
  }

  claimDue(claim: Storage.Claim): Promise<Storage.DueDelivery[]> {
    return this.groupCommit.webhook({ kind: "claim", claim });
  }

  settle(delivery: number, owner: string, result: Storage.AttemptResult): Promise<void> {
    return this.groupCommit.webhook({ kind: "settle", delivery, owner, result });
  }

  async oldestPendingAgeSeconds(): Promise<number> {
    const created = this.oldestPending.get()?.created;
    return created == null ? 0 : Math.max(0, (Date.now() - created) / 1000);
  }

  prune(before: number, limit: number): Promise<number> {
    return this.groupCommit.webhook({ kind: "prune", before, limit });
  }

  addEndpoint(url: string, events: readonly WebhookEventType[], secret: string): Promise<Storage.WebhookEndpoint> {
    return this.groupCommit.webhook({ kind: "add-endpoint", url, events: [...events], secret });
  }

  async listEndpoints(): Promise<Storage.WebhookEndpoint[]> {
    return this.endpoints.all().map(endpointFromRow);
  }

  removeEndpoint(endpoint: number): Promise<boolean> {
    return this.groupCommit.webhook({ kind: "remove-endpoint", endpoint });
  }

  rotateSecret(endpoint: number, secret: string, overlapUntil: number): Promise<boolean> {
    return this.groupCommit.webhook({ kind: "rotate-secret", endpoint, secret, overlapUntil });
  }

  syncConfigured(urls: readonly string[], secret: string, overlapUntil: number): Promise<Storage.ConfiguredChanges> {
    return this.groupCommit.webhook({ kind: "sync-configured", urls: [...urls], secret, overlapUntil });
  }

  async listDeliveries({ failedOnly, limit }: { failedOnly: boolean; limit: number }): Promise<Storage.DeliveryInfo[]> {
    return this.db.prepare<[number], DeliveryRow>(deliveriesSql(failedOnly, "?")).all(limit).map(deliveryFromRow);
  }

  redeliver(delivery: number): Promise<boolean> {
    return this.groupCommit.webhook({ kind: "redeliver", delivery });
  }
}
