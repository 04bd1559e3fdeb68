import type { Logger } from "../logger.js";
import type { ConfiguredChanges, ConfiguredEndpoint, WebhookRepository } from "../store/storage.js";
import { shownUrl } from "./delivery-worker.js";
import { ROTATION_OVERLAP_MS } from "./signing.js";

/**
 * Applies PLANTSTORE_WEBHOOK_URLS and PLANTSTORE_WEBHOOK_SECRET to the store at start. The store's
 * configured endpoints are shared by every instance on it, so an instance whose settings differ
 * changes them for all: nothing is deleted (a URL that left is disabled with its deliveries kept, a
 * changed secret is rotated, the old one co-signing for ROTATION_OVERLAP_MS), and the instance says
 * what it changed in one warn line. The first configuration of a store is an info line.
 */
export async function applyWebhookSettings(
  repository: WebhookRepository,
  urls: readonly string[],
  secret: string,
  logger: Logger,
): Promise<ConfiguredChanges> {
  const changes = await repository.syncConfigured(urls, secret, Date.now() + ROTATION_OVERLAP_MS);
  const { wasConfigured, added, resumed, disabled, rotated } = changes;
  const shown = ({ id, url }: ConfiguredEndpoint) => ({ id, url: shownUrl(url) });
  if (!wasConfigured) {
    if (added.length > 0) logger.info({ added: added.map(shown) }, "configured webhook endpoints");
    return changes;
  }
  if (added.length + resumed.length + disabled.length + rotated.length === 0) return changes;
  logger.warn(
    {
      ...(added.length > 0 ? { added: added.map(shown) } : {}),
      ...(resumed.length > 0 ? { resumed: resumed.map(shown) } : {}),
      ...(disabled.length > 0
        ? {
            disabled: disabled.map((endpoint) => ({
              ...shown(endpoint),
              pending: endpoint.pending,
              failed: endpoint.failed,
            })),
          }
        : {}),
      ...(rotated.length > 0 ? { secretRotated: rotated.map(shown) } : {}),
    },
    "webhook settings differ from the store's, and every instance on it now follows this one's: " +
      "a disabled endpoint keeps its deliveries (put its URL back to deliver them, or `webhooks remove <id>` " +
      "to delete them); a rotated secret's old one also signs for 24 hours. Start every instance with the same settings",
  );
  return changes;
}
