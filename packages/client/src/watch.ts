import {
  ChangeStreamReset,
  parseExactJson,
  plantStoreContract,
  RESET_EVENT,
  WebhookEvent,
  type StoredPlant,
  type WebhookEventType,
} from "@plantstore/contract";
import { PlantStoreError } from "./plant-store-error.js";
import { isRetryableStatus, parseRetryAfterMs } from "./retry-policy.js";
import { ServerSentEventParser, type ServerSentEvent } from "./server-sent-events.js";

/** What a committed change did to a plant. */
export type PlantChangeKind = "created" | "updated" | "deleted";

/** One committed change, as `watchPlants` yields it (in commit order). */
export interface PlantChangeEvent {
  kind: PlantChangeKind;
  /** The plant after the change (for `deleted`: as it was); ids exact (bigint). */
  plant: StoredPlant;
  /** The plant's version (its ETag without the quotes) after the change (for `deleted`: before it). */
  version: string | undefined;
  /** The change's position: only grows, in commit order. Resume from it with `after`. */
  cursor: string;
  /** When the change was committed (RFC 3339). */
  timestamp: string;
}

/**
 * The cursor asked for is older than what the server keeps (or not this store's): the changes after
 * it are gone. Re-read the list; the events that follow go on from `cursor`.
 */
export interface PlantChangeReset {
  kind: "reset";
  cursor: string;
  message: string;
}

export type PlantChange = PlantChangeEvent | PlantChangeReset;

/** Where a watch is: connecting (the first time), live (the stream is open), reconnecting (it dropped). */
export type WatchState = "connecting" | "live" | "reconnecting";

export interface WatchPlantsOptions {
  /** Only the changes after this cursor (a change's `cursor`). Default: from now on. */
  after?: string | bigint;
  /** Ends the watch: the iteration finishes (no error). */
  signal?: AbortSignal;
  /** Told whenever the watch connects, is live, or lost its stream and reconnects. */
  onState?: (state: WatchState) => void;
}

export interface WatchContext {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
}

const KINDS: Record<WebhookEventType, PlantChangeKind> = {
  "plant.created": "created",
  "plant.updated": "updated",
  "plant.deleted": "deleted",
};

/** Waits between reconnects: the server's `retry:` (1 s) at first, doubling to this. */
const MAX_RECONNECT_DELAY_MS = 30_000;
/** A failure that reconnecting cannot help: the watch ends with its error. */
class Final {
  constructor(readonly error: PlantStoreError) {}
}

/**
 * Every committed change after `options.after`, in commit order, as they happen. Reconnects by
 * itself after any break (network, restart, a server that ended the stream) from the last cursor
 * it yielded, so that nothing is missed or repeated; ends when `options.signal` aborts. Throws a
 * PlantStoreError only when reconnecting cannot help: the token is refused or revoked (401, 403),
 * or the cursor is not one (400).
 */
export async function* watchPlants(
  context: WatchContext,
  options: WatchPlantsOptions = {},
): AsyncGenerator<PlantChange, void, undefined> {
  const { signal, onState } = options;
  let cursor = options.after === undefined ? undefined : String(options.after);
  let failures = 0;
  let retryMs = 1_000;
  onState?.("connecting");
  while (!signal?.aborted) {
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    let waitMs: number | undefined;
    try {
      const url = new URL(`${context.baseUrl}${plantStoreContract.streamPlantChanges.path}`);
      if (cursor !== undefined) url.searchParams.set("after", cursor);
      const response = await context.fetch(url.href, {
        headers: { authorization: `Bearer ${context.token}`, accept: "text/event-stream" },
        signal: controller.signal,
      });
      if (response.status !== 200 || response.body === null) {
        const error = await refusal(response);
        // A 4xx other than 408 and 429 (a refused token, a bad cursor) says reconnecting cannot help.
        if (response.status < 500 && !isRetryableStatus(response.status)) throw new Final(error);
        waitMs = error.retryAfterMs;
        throw error;
      }
      onState?.("live");
      failures = 0;
      const queue: ServerSentEvent[] = [];
      const parser = new ServerSentEventParser((event) => queue.push(event));
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
          if (parser.retryMs !== undefined) retryMs = parser.retryMs;
          // The stream's first block names where it starts: resume from there if it drops at once.
          if (cursor === undefined && parser.lastEventId !== "") cursor = parser.lastEventId;
          while (queue.length > 0) {
            const change = changeOf(queue.shift()!);
            if (change === undefined) continue;
            cursor = change.cursor;
            yield change;
          }
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    } catch (error) {
      if (error instanceof Final) throw error.error;
      if (signal?.aborted) return;
    } finally {
      signal?.removeEventListener("abort", abort);
      controller.abort();
    }
    if (signal?.aborted) return;
    onState?.("reconnecting");
    const delay = waitMs ?? Math.min(MAX_RECONNECT_DELAY_MS, retryMs * 2 ** Math.min(failures, 5));
    failures++;
    await sleepUnlessAborted(failures === 1 && waitMs === undefined ? Math.random() * retryMs : delay, signal);
  }
}

/** An SSE event as a change (or a reset); undefined for an event type this client does not know. */
function changeOf(event: ServerSentEvent): PlantChange | undefined {
  if (event.type === RESET_EVENT) {
    const reset = ChangeStreamReset.parse(JSON.parse(event.data));
    return { kind: "reset", cursor: reset.cursor, message: reset.message };
  }
  const parsed = WebhookEvent.safeParse(parseExactJson(event.data));
  if (!parsed.success) {
    if (event.type.startsWith("plant.")) {
      throw new Final(
        new PlantStoreError({
          kind: "unexpected-response",
          message: `a ${event.type} event does not match the contract: ${parsed.error.message}`,
        }),
      );
    }
    return undefined;
  }
  const { type, data, version, timestamp } = parsed.data;
  return { kind: KINDS[type], plant: data, version, cursor: event.lastEventId, timestamp };
}

async function refusal(response: Response): Promise<PlantStoreError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const { error: code, message } = (body ?? {}) as { error?: number; message?: string };
  return new PlantStoreError({
    kind: "http",
    status: response.status,
    ...(typeof code === "number" ? { code } : {}),
    ...(typeof message === "string" ? { detail: message } : {}),
    retryAfterMs: parseRetryAfterMs(response.headers.get("retry-after")),
    message: `HTTP ${response.status}${typeof message === "string" ? `: ${message}` : ""}`,
  });
}

function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
