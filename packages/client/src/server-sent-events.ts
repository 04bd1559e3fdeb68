/**
 * A small Server-Sent Events parser (WHATWG HTML §9.2.6, "Interpreting an event stream"), for any
 * runtime with `fetch` streaming and TextDecoder: no Node built-in, no dependency. Fed the body's
 * text as it arrives (any chunking), it hands out each dispatched event.
 */
export interface ServerSentEvent {
  /** `event:` (default "message"). */
  type: string;
  data: string;
  /** The last event id as of this event (`id:`, possibly from an earlier block). */
  lastEventId: string;
}

export class ServerSentEventParser {
  private buffer = "";
  private started = false;
  private data: string[] = [];
  private type = "";
  /** The last event ID buffer: it survives dispatches, and an `id:`-only block sets it. */
  lastEventId = "";
  /** The reconnection time the stream asked for (`retry:`), if any. */
  retryMs: number | undefined;

  constructor(private readonly dispatch: (event: ServerSentEvent) => void) {}

  /** Feeds decoded text; dispatches every event it completes. */
  push(text: string): void {
    this.buffer += text;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.charCodeAt(0) === 0xfeff) this.buffer = this.buffer.slice(1);
    }
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf("\r", start);
      const lf = this.buffer.indexOf("\n", start);
      if (cr === -1 && lf === -1) break;
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (cr === this.buffer.length - 1) break;
        end = cr;
        next = this.buffer.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      this.line(this.buffer.slice(start, end));
      start = next;
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === "") return this.dispatchEvent();
    if (line.startsWith(":")) return; // a comment (heartbeat)
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.type = value;
        return;
      case "data":
        this.data.push(value);
        return;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        return;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retryMs = Number(value);
        return;
    }
  }

  private dispatchEvent(): void {
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = "";
    if (data.length === 0) return;
    this.dispatch({ type: type || "message", data: data.join("\n"), lastEventId: this.lastEventId });
  }
}
