import type { ChangeEntry } from "../store/storage.js";

/**
 * The wire format of the change stream (Server-Sent Events, WHATWG HTML §9.2). Every field is one
 * line: an event's data is its webhook body, JSON on one line (JSON escapes line breaks inside
 * strings, and the body has none outside them), so it never needs splitting.
 */

/** The stream's first block: reconnect after 1 s, and the cursor it starts from (an `id:` alone dispatches nothing but sets the client's last event id). */
export function streamStart(cursor: bigint): string {
  return `retry: 1000\nid: ${cursor}\n\n`;
}

export function changeEvent(change: ChangeEntry): string {
  return `event: ${change.type}\ndata: ${change.body}\nid: ${change.position}\n\n`;
}

/** The cursor is older than what is kept (or not this store's): re-read the list, go on from `cursor`. */
export function resetEvent(cursor: bigint, message: string): string {
  return `event: reset\ndata: ${JSON.stringify({ message, cursor: cursor.toString() })}\nid: ${cursor}\n\n`;
}

export const HEARTBEAT = ": heartbeat\n\n";
