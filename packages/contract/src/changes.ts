import { z } from "zod";
import { checked, notText, Refused } from "./checked.js";
import { openApiMeta } from "./openapi-meta.js";

/**
 * The live stream of committed changes (`GET /plants/changes`): Server-Sent Events, one event per
 * committed change in commit order, each with the same JSON payload as its webhook event and the
 * change's position as its SSE `id:` (the cursor to resume from).
 */
export const CHANGE_STREAM_CONTENT_TYPE = "text/event-stream";

/** Where the stream goes on: the cursor of the last event a client has (the SSE reconnect header). */
export const LAST_EVENT_ID_HEADER = "last-event-id";

/**
 * The SSE event that says the cursor asked for is older than what the server keeps (or is not one
 * of this store's): changes after it are gone, so the client must re-read the list. Its `id:` is the
 * cursor the stream goes on from; its data is a ChangeStreamReset.
 */
export const RESET_EVENT = "reset";

const MAX_CURSOR = 9223372036854775807n;

/**
 * A position in the log of committed changes: an integer from 0 (before the first change) to
 * 2^63-1, as decimal text (a cursor) — positions only grow, in commit order.
 */
function cursorText(description: string) {
  return openApiMeta(
    checked<bigint, string>((value) => {
      if (typeof value !== "string") return notText(value);
      return /^(?:0|[1-9][0-9]{0,18})$/.test(value) && BigInt(value) <= MAX_CURSOR
        ? BigInt(value)
        : new Refused("must be a cursor: a decimal integer from 0 to 9223372036854775807 (an event's id)");
    }),
    { type: "integer", format: "int64", minimum: 0, description, example: 42 },
  );
}

export const ChangeCursor = cursorText("A cursor: the `id` of the last event received.");

/** The query of `GET /plants/changes`: `after`, for clients that cannot set Last-Event-ID. */
export const ChangeStreamQuery = z
  .object({
    after: cursorText(
      "Send only the changes after this cursor (the `id` of the last event received); Last-Event-ID, when sent, wins. Without either, the stream starts with the changes committed from now on.",
    ).optional(),
  })
  .strict();
export type ChangeStreamQuery = z.output<typeof ChangeStreamQuery>;

/** The headers of `GET /plants/changes` (what EventSource sends when it reconnects). */
export const ChangeStreamHeaders = z.object({
  [LAST_EVENT_ID_HEADER]: cursorText(
    "The cursor of the last event received (what EventSource sends when it reconnects): the stream goes on after it.",
  ).optional(),
});

/** The data of a `reset` event. */
export const ChangeStreamReset = openApiMeta(
  z.object({
    message: z.string(),
    /** The cursor the stream goes on from (also the event's `id`), as decimal text. */
    cursor: z.string(),
  }),
  {
    title: "ChangeStreamReset",
    description:
      "The cursor asked for is older than the changes the server keeps (or not one of this store's): what happened after it is gone. Re-read the list; the stream goes on from `cursor`.",
  },
);
export type ChangeStreamReset = z.output<typeof ChangeStreamReset>;
