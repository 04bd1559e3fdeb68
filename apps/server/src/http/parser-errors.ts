import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { ErrorCode } from "@plantstore/contract";
import { ApiError, jsonHead } from "./answer.js";
import { EVERY_ANSWER_HEADERS, pathOf, requestIdFrom, type RequestRecorder } from "./context.js";
import type { CorsPolicy } from "./cors.js";

const HEADERS_TOO_LARGE = new ApiError(ErrorCode.HEADERS_TOO_LARGE, "the request headers are too large");
const TIMED_OUT = new ApiError(ErrorCode.REQUEST_TIMEOUT, "the request did not arrive in time");
const MALFORMED = new ApiError(ErrorCode.BAD_REQUEST, "the HTTP request is malformed");

function refusalFor(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return HEADERS_TOO_LARGE;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return TIMED_OUT;
  return MALFORMED;
}

/** How much of the refused bytes is read: Node's default header limit (16 KiB) and the request line. */
const SCANNED_BYTES = 24 * 1024;
/** A request line: a method (a token), a target of visible ASCII, the version. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) ([\x21-\x7E]{1,8192}) HTTP\/\d\.\d$/;
const HEADER_LINE = /^(x-request-id|origin):[ \t]*(.{0,200}?)[ \t]*$/i;

export interface RefusedHead {
  method?: string;
  path?: string;
  /** The X-Request-Id line's value, as sent (its one line; none when it is repeated). */
  requestId?: string;
  /** The Origin line's value, for the CORS headers. */
  origin?: string;
}

/**
 * What can be read of the head Node's parser refused, from the bytes it was reading when it did
 * (`rawPacket`, the error at `bytesParsed` in them): its request line, X-Request-Id and Origin. The
 * request line only when those bytes hold the start of the head (a head sent in one write; of a
 * head that arrived in pieces only its last piece is there, and its first line is not guessed at). A request
 * pipelined before it in the same bytes ends with the blank line that starts the refused head.
 * Bounded: at most SCANNED_BYTES are looked at, as text, line by line.
 */
export function readRefusedHead(rawPacket: Buffer | undefined, bytesParsed: number | undefined): RefusedHead {
  if (rawPacket === undefined) return {};
  const text = rawPacket.toString("latin1", 0, Math.min(rawPacket.length, SCANNED_BYTES));
  const errorAt = Math.min(bytesParsed ?? text.length, text.length);
  // The blank line ending an earlier request, not the refused head's own (which may be where it failed).
  const earlier = errorAt >= 5 ? text.lastIndexOf("\r\n\r\n", errorAt - 5) : -1;
  const start = earlier === -1 ? 0 : earlier + 4;
  const end = text.indexOf("\r\n\r\n", start);
  const lines = text.slice(start, end === -1 ? text.length : end).split("\r\n");
  if (end === -1) lines.pop(); // the bytes end inside this line: it may be cut short
  const [requestLine = "", ...headerLines] = lines;
  const request = REQUEST_LINE.exec(requestLine);
  const head: RefusedHead = request === null ? {} : { method: request[1], path: pathOf(request[2]!) };
  const values = { "x-request-id": [] as string[], origin: [] as string[] };
  for (const line of headerLines) {
    const header = HEADER_LINE.exec(line);
    if (header !== null) values[header[1]!.toLowerCase() as keyof typeof values].push(header[2]!);
  }
  if (values["x-request-id"].length === 1) head.requestId = values["x-request-id"][0];
  if (values.origin.length >= 1) head.origin = values.origin[0];
  return head;
}

/**
 * Requests Node's HTTP parser refuses (bad framing, a control byte in a header, headers over the
 * limit) never become a request object. They still get what every answer gets: the JSON Error, a
 * request id, the security headers, the CORS headers when the raw request shows an allowed Origin,
 * and one access-log line; then the connection closes.
 */
export function answerParserErrors(record: RequestRecorder, cors: CorsPolicy) {
  return function answerParserError(
    error: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number },
    socket: Socket,
  ): void {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code);
    const { method, path, requestId: sent, origin } = readRefusedHead(error.rawPacket, error.bytesParsed);
    const requestId = requestIdFrom(sent);
    const head = jsonHead(refusal.body, [
      "X-Request-Id",
      requestId,
      ...EVERY_ANSWER_HEADERS.flat(),
      ...cors.headersFor(origin),
      "Connection",
      "close",
    ]);
    let answer = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n`;
    for (let i = 0; i < head.length; i += 2) answer += `${head[i]}: ${head[i + 1]}\r\n`;
    socket.end(`${answer}\r\n${refusal.body}`);
    record({
      requestId,
      operation: "unparsed",
      method,
      path,
      status: refusal.status,
      ms: 0,
      parserError: error.code ?? "unknown",
    });
  };
}
