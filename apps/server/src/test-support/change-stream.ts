import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { parseExactJson } from "@plantstore/contract";
import { TOKEN } from "./test-server.js";

/** One SSE block of the change stream, as the server writes it (LF line ends, one data line). */
export interface StreamEvent {
  event: string | undefined;
  id: string | undefined;
  data: string | undefined;
}

export interface OpenStream {
  status: number;
  response: IncomingMessage;
  /** Every event with data received so far (heartbeats and the starting block left out). */
  events: StreamEvent[];
  /** The id of the first block (where the stream starts). */
  start: string | undefined;
  /** Resolves when the server ended the stream (or the connection closed). */
  ended: Promise<void>;
  /** True once `ended` resolved. */
  isEnded(): boolean;
  close(): void;
  /**
   * A `paused` stream starts reading: what arrived (and the kernel held for it) is parsed into
   * `events` as for any stream, a block cut short by the end left out. Nothing for a reading stream.
   */
  resume(): void;
  request: ClientRequest;
}

/** The change events' data, parsed exactly (ids and sequences as the contract says). */
export function changesOf(
  stream: OpenStream,
): Array<{ type: string; data: { id: bigint; name: string; tag?: string }; sequence: string; version: string }> {
  return stream.events
    .filter((event) => event.event?.startsWith("plant."))
    .map((event) => parseExactJson(event.data!) as never);
}

/**
 * GET /plants/changes on raw node:http (to see exactly when the server ends the stream), parsing the
 * blocks as they come. `paused`: the body is not read (a subscriber that stops reading) until `resume()`.
 */
export function openStream(
  baseUrl: string,
  options: { after?: string; lastEventId?: string; token?: string; paused?: boolean } = {},
): Promise<OpenStream> {
  const query = options.after === undefined ? "" : `?after=${options.after}`;
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/plants/changes${query}`, {
      agent: false,
      headers: {
        authorization: `Bearer ${options.token ?? TOKEN}`,
        ...(options.lastEventId === undefined ? {} : { "last-event-id": options.lastEventId }),
      },
    });
    req.on("error", reject);
    req.on("response", (response) => {
      let ended = false;
      let buffer = "";
      let markEnded: () => void = () => {};
      const stream: OpenStream = {
        status: response.statusCode ?? 0,
        response,
        events: [],
        start: undefined,
        ended: new Promise<void>((done) => (markEnded = done)),
        isEnded: () => ended,
        close: () => req.destroy(),
        resume: () => {},
        request: req,
      };
      const finish = () => {
        ended = true;
        markEnded();
      };
      response.on("end", finish);
      response.on("close", finish);
      response.on("error", finish);
      req.on("error", finish);
      let reading = false;
      const read = () => {
        if (reading) return;
        reading = true;
        response.setEncoding("utf8");
        // A stream paused explicitly stays paused when a listener is added: resume it.
        response.resume();
        response.on("data", (chunk: string) => {
          buffer += chunk;
          let boundary: number;
          while ((boundary = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            const fields: StreamEvent = { event: undefined, id: undefined, data: undefined };
            for (const line of block.split("\n")) {
              const colon = line.indexOf(": ");
              if (line.startsWith(":") || colon === -1) continue;
              const [name, value] = [line.slice(0, colon), line.slice(colon + 2)];
              if (name === "event" || name === "id" || name === "data") fields[name] = value;
            }
            if (fields.data !== undefined) stream.events.push(fields);
            else if (fields.id !== undefined && stream.start === undefined) stream.start = fields.id;
          }
        });
      };
      stream.resume = read;
      if (options.paused) response.pause();
      else read();
      resolve(stream);
    });
    req.end();
  });
}
