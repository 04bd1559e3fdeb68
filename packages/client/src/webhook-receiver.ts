import { timingSafeEqual } from "node:crypto";
import {
  MalformedJsonError,
  parseExactJson,
  WEBHOOK_HEADERS,
  WebhookEvent,
  type WebhookEventType,
} from "@plantstore/contract";
import { webhookSecretKey, webhookSignature } from "@plantstore/contract/webhook-signature";

/** How far a delivery's `webhook-timestamp` may be from now, either way, by default (Standard Webhooks). */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** A verified event: the contract's event with its plant's id as an exact `bigint`. */
export type ReceivedWebhookEvent = {
  [Type in WebhookEventType]: {
    type: Type;
    /** When the change was committed (RFC 3339, UTC). */
    timestamp: string;
    /** The plant created, the plant after an edit, or the plant as it was when deleted. */
    data: { id: bigint; name: string; tag?: string };
    /** The plant's version (its ETag without the quotes) after the change; for a delete, before it. */
    version?: string;
    /**
     * The change's position in the store's log: it only grows, in commit order, across instances.
     * Apply an event only when it is greater than the last one applied for its plant (EventOrder).
     * Absent only from events committed before the server version that added it.
     */
    sequence?: bigint;
    /** The delivery's `webhook-id`: the same on every retry of the event, so de-duplicate on it. */
    webhookId: string;
  };
}[WebhookEventType];

/**
 * Why a delivery was refused:
 * - `invalid-secret`: the secret given to the helper is not `whsec_<base64 of 24–64 bytes>`;
 * - `missing-header` / `malformed-header`: a `webhook-*` header is absent or not of its form;
 * - `timestamp-too-old` / `timestamp-in-future`: outside the tolerance (a replayed or delayed delivery);
 * - `bad-signature`: no `v1` signature matches the secret (a forged or altered delivery);
 * - `malformed-body`: signed correctly, yet not an event of the contract.
 */
export type WebhookVerificationReason =
  | "invalid-secret"
  | "missing-header"
  | "malformed-header"
  | "timestamp-too-old"
  | "timestamp-in-future"
  | "bad-signature"
  | "malformed-body";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as Node's `IncomingMessage.headers` (lower-case names), a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Seconds a delivery's timestamp may be from now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). Default `Date.now()`. */
  now?: () => number;
}

const SIGNATURE = /^v1,([A-Za-z0-9+/]+={0,2})$/;

function header(headers: WebhookHeaders, name: string): string {
  const value =
    headers instanceof Headers
      ? headers.get(name)
      : (headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]);
  if (value === undefined || value === null) {
    throw new WebhookVerificationError("missing-header", `the ${name} header is missing`);
  }
  if (typeof value !== "string")
    throw new WebhookVerificationError("malformed-header", `${name} appears more than once`);
  return value;
}

/**
 * Verifies a Plant Store webhook delivery (Standard Webhooks) and returns its typed event, or throws
 * a `WebhookVerificationError` saying why not. Pass the body exactly as received (the raw bytes or
 * their UTF-8 text: the signature covers them, so re-serialized JSON would not verify) and the
 * endpoint's secret (`whsec_…`). Any one of the space-separated `v1` signatures may match, so
 * deliveries keep verifying while the server rotates the secret. Compare `webhookId` to de-duplicate:
 * a delivery is retried until it is acknowledged with a 2xx, so the same event may arrive twice.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): ReceivedWebhookEvent {
  let key: Buffer;
  try {
    key = webhookSecretKey(secret);
  } catch (error) {
    throw new WebhookVerificationError("invalid-secret", `the webhook secret ${(error as Error).message}`);
  }
  const webhookId = header(headers, WEBHOOK_HEADERS.id);
  const timestampText = header(headers, WEBHOOK_HEADERS.timestamp);
  const signatures = header(headers, WEBHOOK_HEADERS.signature);
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError("malformed-header", `${WEBHOOK_HEADERS.timestamp} must be Unix seconds`);
  }

  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const skew = Number(timestampText) - Math.floor((options.now ?? Date.now)() / 1000);
  if (skew < -tolerance) {
    throw new WebhookVerificationError(
      "timestamp-too-old",
      `the delivery is ${-skew} s old (tolerance ${tolerance} s)`,
    );
  }
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      "timestamp-in-future",
      `the delivery is ${skew} s ahead (tolerance ${tolerance} s)`,
    );
  }

  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  const expected = Buffer.from(webhookSignature(key, webhookId, timestampText, text));
  const matches = signatures
    .split(" ")
    .filter((candidate) => SIGNATURE.test(candidate))
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError("bad-signature", "no v1 signature matches the secret");

  let parsed: unknown;
  try {
    parsed = parseExactJson(text);
  } catch (error) {
    if (!(error instanceof MalformedJsonError)) throw error;
    throw new WebhookVerificationError("malformed-body", `the body is not JSON: ${error.message}`);
  }
  const event = WebhookEvent.safeParse(parsed);
  if (!event.success) {
    const issue = event.error.issues[0];
    throw new WebhookVerificationError(
      "malformed-body",
      `the body is not a Plant Store event: ${issue?.path.join(".")} ${issue?.message}`,
    );
  }
  const { type, timestamp, data, version, sequence } = event.data;
  const plant = { id: BigInt(data.id), name: data.name, ...(data.tag === undefined ? {} : { tag: data.tag }) };
  return {
    type,
    timestamp,
    data: plant,
    webhookId,
    ...(version === undefined ? {} : { version }),
    ...(sequence === undefined ? {} : { sequence }),
  };
}

/**
 * The receiving rule for a receiver that mirrors the store: deliveries are retried until
 * acknowledged, so an older event of a plant may arrive after a newer one (an edit whose first
 * attempt failed, arriving after the next edit). Apply an event only when its `sequence` is greater
 * than the last one applied for its plant; discard it otherwise (and still acknowledge it). Holds
 * one entry per plant seen; an event without a sequence (committed before the server version that
 * added it) is always applied.
 */
export class EventOrder {
  private readonly applied = new Map<bigint, bigint>();

  /** True when `event` is newer than every event applied for its plant (it is recorded as applied); false: discard it. */
  isNewer(event: Pick<ReceivedWebhookEvent, "data" | "sequence">): boolean {
    if (event.sequence === undefined) return true;
    const last = this.applied.get(event.data.id);
    if (last !== undefined && event.sequence <= last) return false;
    this.applied.set(event.data.id, event.sequence);
    return true;
  }
}
