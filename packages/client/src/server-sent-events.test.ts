import { describe, expect, it } from "vitest";
import { ServerSentEventParser, type ServerSentEvent } from "./server-sent-events.js";

function parse(chunks: string[]): { events: ServerSentEvent[]; parser: ServerSentEventParser } {
  const events: ServerSentEvent[] = [];
  const parser = new ServerSentEventParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return { events, parser };
}

const STREAM =
  '\uFEFFretry: 1000\nid: 41\n\n: heartbeat\n\nevent: plant.created\ndata: {"a":1}\nid: 42\n\n' +
  "event: reset\r\ndata: one\r\ndata:two\r\nid: 50\r\n\r\ndata: plain\rid\r\r\n";

describe("ServerSentEventParser", () => {
  it("reads events, ids, retry, comments and every line ending (WHATWG HTML §9.2.6)", () => {
    const { events, parser } = parse([STREAM]);
    expect(events).toEqual([
      { type: "plant.created", data: '{"a":1}', lastEventId: "42" },
      { type: "reset", data: "one\ntwo", lastEventId: "50" },
      // `id` without a value empties the last event id.
      { type: "message", data: "plain", lastEventId: "" },
    ]);
    expect(parser.retryMs).toBe(1000);
  });

  it("gives the same events however the text is cut, a CRLF split included", () => {
    const whole = parse([STREAM]).events;
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
      expect(parse(chunks).events, `chunks of ${size}`).toEqual(whole);
    }
  });

  it("sets the last event id from a block without data, and dispatches nothing for it", () => {
    const { events, parser } = parse(["id: 7\n\n"]);
    expect(events).toEqual([]);
    expect(parser.lastEventId).toBe("7");
  });

  it("drops an event cut off by the end of the stream", () => {
    expect(parse(["event: plant.created\ndata: {}\nid: 1\n"]).events).toEqual([]);
  });
});
