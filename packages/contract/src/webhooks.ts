import { openApiMeta } from "./openapi-meta.js";
import { z } from "zod";
import { StoredPlant } from "./plant.js";

/**
 * The events Plant Store sends to webhook endpoints (Standard Webhooks: a `type`, a `timestamp` and
 * the event's `data`), signed with the headers below. `plant.created` is sent once per plant a create
 * made (never for a replay, a conflict or a failed create); `plant.updated` once per edit that
 * changed the plant, with the plant as it is after it (never for a PUT that changed nothing);
 * `plant.deleted` once per delete that answered 204, with the plant as it was.
 */
export const WEBHOOK_EVENT_TYPES = ["plant.created", "plant.updated", "plant.deleted"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** The Standard Webhooks headers of every delivery. */
export const WEBHOOK_HEADERS = {
  /** Unique per event, the same on every retry of it: receivers de-duplicate on it. */
  id: "webhook-id",
  /** Unix seconds of this attempt. */
  timestamp: "webhook-timestamp",
  /** `v1,<base64 HMAC-SHA256>`, space-separated when several secrets are in use (rotation). */
  signature: "webhook-signature",
} as const;

/** Each event's schema name (its OpenAPI component). */
const EVENT_TITLES: Record<WebhookEventType, string> = {
  "plant.created": "PlantCreatedEvent",
  "plant.updated": "PlantUpdatedEvent",
  "plant.deleted": "PlantDeletedEvent",
};

const eventOf = (type: WebhookEventType, description: string) =>
  openApiMeta(
    z.object({
      type: z.literal(type),
      timestamp: openApiMeta(z.string().datetime(), {
        format: "date-time",
        maxLength: 30,
        description: "When the change was committed (RFC 3339, UTC).",
      }),
      data: StoredPlant,
    }),
    {
      title: EVENT_TITLES[type],
      description,
      example: {
        type,
        timestamp: "2026-11-22T10:15:30.123Z",
        data: { id: 7, name: "Monstera deliciosa", tag: "indoor" },
      },
    },
  );

export const PlantCreatedEvent = eventOf(
  "plant.created",
  "A plant was added to the store (a create answered 200 created).",
);
export const PlantUpdatedEvent = eventOf(
  "plant.updated",
  "A plant was edited (a PUT answered 200 and changed it); data is the plant as it is after the edit.",
);
export const PlantDeletedEvent = eventOf(
  "plant.deleted",
  "A plant was deleted (a delete answered 204); data is the plant as it was.",
);
export const WebhookEvent = z.discriminatedUnion("type", [PlantCreatedEvent, PlantUpdatedEvent, PlantDeletedEvent]);
export type WebhookEvent = z.output<typeof WebhookEvent>;

/** The start of the last body written, up to its id (see webhookEventBody). */
let head = { type: "", timestamp: "", text: "" };

/**
 * The body of an event: the exact bytes that are signed and sent on every attempt. Ids are exact
 * JSON integers; the tag appears only when the plant has one. `timestamp` is RFC 3339 UTC (a
 * batch's events share one, so it is formatted once).
 *
 * Written out field by field rather than through `stringifyExactJson`: the writer builds one body per
 * event inside the create's transaction, and the generic path (a replacer call per value, a marker
 * and a regular expression for the bigint, and a Date formatted per event) cost 2.1–2.6 µs a body,
 * this 0.4–0.5 µs. Strings are
 * quoted by `JSON.stringify`, so the bytes are the same as `stringifyExactJson` of
 * `{ type, timestamp, data }` (the test holds the two together). The part before the id is the same
 * for every event of a type in a batch, so it is kept from the last call.
 */
export function webhookEventBody(type: WebhookEventType, plant: StoredPlant, timestamp: string): string {
  if (type !== head.type || timestamp !== head.timestamp) {
    head = {
      type,
      timestamp,
      text: `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":{"id":`,
    };
  }
  const tag = plant.tag === undefined ? "" : `,"tag":${JSON.stringify(plant.tag)}`;
  return `${head.text}${plant.id.toString()},"name":${JSON.stringify(plant.name)}${tag}}}`;
}
