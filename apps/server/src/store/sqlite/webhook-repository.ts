import type { WebhookEventType } from "@plantstore/contract";
import type * as Storage from "../storage.js";
import { deliveryFromRow, endpointFromRow } from "../webhook-rows.js";
import type { GroupCommit } from "./group-commit.js";
import type { Reader } from "./reader.js";

/**
 * Webhooks in SQLite. Every write (claims, results, endpoint changes) goes through the group commit
 * to the writer thread, so that no commit's fsync, and no wait for the write lock, ever blocks the
 * event loop; reads go to the reader thread. Times come from this process's clock (one machine).
 */
export class SqliteWebhookRepository implements Storage.WebhookRepository {
  constructor(
    private readonly reader: Reader,
    private readonly groupCommit: GroupCommit,
  ) {}

  async msUntilNextDue(): Promise<number | undefined> {
    const due = await this.reader.read("nextDue");
    return due === null ? undefined : due - Date.now();
  }

  claimDue(claim: Storage.Claim): Promise<Storage.DueDelivery[]> {
    return this.groupCommit.webhook({ kind: "claim", claim });
  }

  settle(delivery: number, owner: string, result: Storage.AttemptResult): Promise<void> {
    return this.groupCommit.webhook({ kind: "settle", delivery, owner, result });
  }

  async oldestPendingAgeSeconds(): Promise<number> {
    const created = await this.reader.read("oldestPendingCreated");
    return created === null ? 0 : Math.max(0, (Date.now() - created) / 1000);
  }

  prune(before: number, limit: number): Promise<number> {
    return this.groupCommit.webhook({ kind: "prune", before, limit });
  }

  addEndpoint(url: string, events: readonly WebhookEventType[], secret: string): Promise<Storage.WebhookEndpoint> {
    return this.groupCommit.webhook({ kind: "add-endpoint", url, events: [...events], secret });
  }

  async listEndpoints(): Promise<Storage.WebhookEndpoint[]> {
    return (await this.reader.read("webhookEndpoints")).map(endpointFromRow);
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
    return (await this.reader.read("webhookDeliveries", failedOnly, limit)).map(deliveryFromRow);
  }

  redeliver(delivery: number): Promise<boolean> {
    return this.groupCommit.webhook({ kind: "redeliver", delivery });
  }
}
