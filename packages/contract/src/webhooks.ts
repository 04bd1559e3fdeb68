import { checked, notText, Refused } from "./checked.js";
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
      version: openApiMeta(z.string().max(64).optional(), {
        pattern: "^[A-Za-z0-9_-]{1,64}$",
        description:
          "The plant's version after the change (before it, for plant.deleted): its ETag without the quotes. Absent only from events committed before the server version that added it.",
        example: "q1W3dd3b6mcOx2hV0kJ9Zw",
      }),
      data: StoredPlant,
      sequence: openApiMeta(
        checked<bigint, string>((value) => {
          if (typeof value !== "string") return notText(value);
          return /^[1-9][0-9]{0,18}$/.test(value)
            ? BigInt(value)
            : new Refused("must be a decimal integer from 1 to 2^63-1");
        }).optional(),
        {
          type: "string",
          pattern: "^[1-9][0-9]{0,18}$",
          maxLength: 19,
          description:
            "The change's position in the store's log of committed changes, as decimal text (an int64, exact in every language): it only grows, in commit order, across every instance. Discard an event whose sequence is not greater than the last one applied for its plant (retries arrive late). The same value is the change's cursor (`id:`) in GET /plants/changes. Absent only from events committed before the server version that added it.",
          example: "42",
        },
      ),
    }),
    {
      title: EVENT_TITLES[type],
      description,
      example: {
        type,
        timestamp: "2026-11-22T10:15:30.123Z",
        version: "q1W3dd3b6mcOx2hV0kJ9Zw",
        data: { id: 7, name: "Monstera deliciosa", tag: "indoor" },
        sequence: "42",
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

/** The start of the last body written, up to its version (see webhookEventHead). */
let head = { type: "", timestamp: "", text: "" };

/**
 * The body of an event up to its sequence: the exact bytes that are signed and sent on every
 * attempt, and sent on the change stream, are this, then the sequence, then `}` (eventWithSequence).
 * The sequence is the change's position, which only the committing transaction knows: PostgreSQL
 * appends it in SQL, SQLite's writer in JS. Ids are exact JSON integers; the tag appears only when
 * the plant has one. `timestamp` is RFC 3339 UTC (a batch's events share one, so it is formatted once).
 *
 * Written out field by field rather than through `stringifyExactJson`: the writer builds one body per
 * event inside the create's transaction, and the generic path (a replacer call per value, a marker
 * and a regular expression for the bigint, and a Date formatted per event) cost 2.1–2.6 µs a body,
 * this 0.4–0.5 µs. Strings are quoted by `JSON.stringify`, so the bytes are the same as
 * `stringifyExactJson` of `{ type, timestamp, version, data, sequence }` (the test holds the two
 * together). The part before the version is the same for every event of a type in a batch, so it is
 * kept from the last call.
 */
export function webhookEventHead(
  type: WebhookEventType,
  plant: StoredPlant,
  timestamp: string,
  version: string,
): string {
  if (type !== head.type || timestamp !== head.timestamp) {
    head = {
      type,
      timestamp,
      text: `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"version":`,
    };
  }
  const tag = plant.tag === undefined ? "" : `,"tag":${JSON.stringify(plant.tag)}`;
  return `${head.text}${JSON.stringify(version)},"data":{"id":${plant.id.toString()},"name":${JSON.stringify(plant.name)}${tag}},"sequence":"`;
}

/** The end of an event's body: its sequence (the change's position) after webhookEventHead. */
export const EVENT_BODY_END = '"}';

/** An event's whole body: its head, its sequence, its end. */
export function eventWithSequence(eventHead: string, sequence: bigint): string {
  return `${eventHead}${sequence.toString()}${EVENT_BODY_END}`;
}
