import { randomFillSync } from "node:crypto";
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@plantstore/contract";
import type { DeliveryInfo, DueDelivery, WebhookEndpoint } from "./storage.js";

/** Random bytes for event ids, drawn from the CSPRNG a page at a time rather than once per id. */
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;
const RANDOM_BYTES_PER_ID = 10;
/** The time part of the last id: a batch's events share their millisecond, so it is formatted once. */
let prefixMs = -1;
let prefix = "";

/**
 * A new event id: unique, opaque to receivers, and the same on every attempt of the event's
 * deliveries. Laid out like a UUIDv7 (48 bits of milliseconds, then 80 random bits), so that new ids
 * sort after old ones: each one lands at the end of the unique index instead of on a random page,
 * which would make every batch's commit rewrite one index page per event. Every create with an
 * endpoint makes one inside its transaction: from the pool it costs 0.4 µs, from `randomUUID` and
 * its reshaping 1.0–1.5 µs. Formatting the milliseconds in hexadecimal (a division per digit) took
 * ~2,200 instructions of the ~33,000 an event adds to a create, so it is done once per millisecond.
 */
export function newEventId(): string {
  if (randomOffset + RANDOM_BYTES_PER_ID > randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const random = randomPool.toString("hex", randomOffset, randomOffset + RANDOM_BYTES_PER_ID);
  randomOffset += RANDOM_BYTES_PER_ID;
  const now = Date.now();
  if (now !== prefixMs) {
    prefixMs = now;
    prefix = `msg_${now.toString(16).padStart(12, "0")}`;
  }
  return prefix + random;
}

/** Why an endpoint stopped receiving deliveries on its own: its pending deliveries failed with it. */
export const GONE_REASON = "the endpoint answered 410 Gone";
/**
 * Why a configured endpoint gets no new events: its URL left PLANTSTORE_WEBHOOK_URLS. Its pending
 * deliveries stay pending (an acknowledged change's event is never thrown away by a configuration
 * change) and go out once the URL is back; only `webhooks remove` deletes them.
 */
export const UNCONFIGURED_REASON = "its URL is not in PLANTSTORE_WEBHOOK_URLS";

/** A `config` endpoint as syncConfigured reads it, on both backends. */
export interface ConfiguredRow {
  id: number;
  url: string;
  secret: string;
  disabled_reason: string | null;
}

/** What syncConfigured does to the store's `config` endpoints (the rule, written once for both backends). */
export interface ConfiguredPlan {
  add: string[];
  resume: ConfiguredRow[];
  disable: ConfiguredRow[];
  rotate: ConfiguredRow[];
}

/**
 * Configured endpoints follow the environment without deleting anything: a URL that left is
 * disabled (only if active: one already disabled, for leaving or for answering 410 Gone, stays as
 * it is), a URL that is back is enabled again unless it answered 410 Gone, a new URL is added, and
 * an endpoint whose secret differs is rotated to the configured one.
 */
export function planConfigured(
  rows: readonly ConfiguredRow[],
  urls: readonly string[],
  secret: string,
): ConfiguredPlan {
  const listed = (row: ConfiguredRow) => urls.includes(row.url);
  return {
    add: urls.filter((url) => !rows.some((row) => row.url === url)),
    resume: rows.filter((row) => listed(row) && row.disabled_reason === UNCONFIGURED_REASON),
    disable: rows.filter((row) => !listed(row) && row.disabled_reason === null),
    rotate: rows.filter((row) => listed(row) && row.secret !== secret),
  };
}

/** A webhook_endpoints row as both databases return it (times in epoch ms; PostgreSQL's bigint as bigint). */
export interface EndpointRow {
  id: number;
  url: string;
  events: string;
  source: string;
  created_at: number | bigint;
  disabled_at: number | bigint | null;
  disabled_reason: string | null;
}

const iso = (ms: number | bigint) => new Date(Number(ms)).toISOString();

export function eventsToColumn(events: readonly WebhookEventType[]): string {
  return WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type)).join(" ");
}

function eventsFromColumn(column: string): WebhookEventType[] {
  return column.split(" ").filter(isWebhookEventType);
}

export function endpointFromRow(row: EndpointRow): WebhookEndpoint {
  const endpoint: WebhookEndpoint = {
    id: row.id,
    url: row.url,
    events: eventsFromColumn(row.events),
    source: row.source === "config" ? "config" : "admin",
    createdAt: iso(row.created_at),
  };
  if (row.disabled_at !== null) {
    endpoint.disabledAt = iso(row.disabled_at);
    endpoint.disabledReason = row.disabled_reason ?? "";
  }
  return endpoint;
}

/**
 * A delivery just leased, with its event and its endpoint's secrets, as both backends read it;
 * `previous_secret` only while the rotation's overlap lasts.
 */
export interface ClaimedRow {
  id: number | bigint;
  attempts: number;
  endpoint: number;
  event_id: string;
  type: string;
  body: string;
  url: string;
  secret: string;
  previous_secret: string | null;
}

export function dueDeliveryFromRow(row: ClaimedRow): DueDelivery {
  if (!isWebhookEventType(row.type)) throw new Error(`unknown event type ${row.type}`);
  return {
    delivery: Number(row.id),
    eventId: row.event_id,
    type: row.type,
    body: row.body,
    attempt: row.attempts,
    endpoint: row.endpoint,
    url: row.url,
    secrets: row.previous_secret === null ? [row.secret] : [row.secret, row.previous_secret],
  };
}

/** A webhook_deliveries row (with its event) joined with its endpoint, as both listings read it. */
export interface DeliveryRow {
  id: number | bigint;
  event_id: string;
  type: string;
  endpoint: number;
  url: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: number | bigint;
  finished_at: number | bigint | null;
}

export function deliveryFromRow(row: DeliveryRow): DeliveryInfo {
  const info: DeliveryInfo = {
    delivery: Number(row.id),
    eventId: row.event_id,
    type: isWebhookEventType(row.type) ? row.type : "plant.created",
    endpoint: row.endpoint,
    url: row.url,
    state: row.state === "delivered" || row.state === "failed" ? row.state : "pending",
    attempts: row.attempts,
    at: iso(row.finished_at ?? row.next_attempt_at),
  };
  if (row.last_status !== null) info.lastStatus = row.last_status;
  if (row.last_error !== null) info.lastError = row.last_error;
  return info;
}

/** The listing of deliveries, newest first (the same SQL on both backends). */
export function deliveriesSql(failedOnly: boolean, limitPlaceholder: string): string {
  return `SELECT d.id, d.event_id, d.type, d.endpoint, p.url, d.state, d.attempts, d.last_status, d.last_error,
                 d.next_attempt_at, d.finished_at
          FROM webhook_deliveries d
          JOIN webhook_endpoints p ON p.id = d.endpoint
          ${failedOnly ? "WHERE d.state = 'failed'" : ""}
          ORDER BY d.id DESC LIMIT ${limitPlaceholder}`;
}
