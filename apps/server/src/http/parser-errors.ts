import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { ErrorCode } from "@plantstore/contract";
import { ApiError, jsonHead } from "./answer.js";
import { EVERY_ANSWER_HEADERS, pathOf, type RequestRecorder } from "./context.js";
import { originOfRawRequest, type CorsPolicy } from "./cors.js";

const HEADERS_TOO_LARGE = new ApiError(ErrorCode.HEADERS_TOO_LARGE, "the request headers are too large");
const TIMED_OUT = new ApiError(ErrorCode.REQUEST_TIMEOUT, "the request did not arrive in time");
const MALFORMED = new ApiError(ErrorCode.BAD_REQUEST, "the HTTP request is malformed");

function refusalFor(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return HEADERS_TOO_LARGE;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return TIMED_OUT;
  return MALFORMED;
}

/** The request line of what the parser refused, when it got that far and it is printable. */
function requestLineOf(rawPacket: Buffer | undefined): { method?: string; path?: string } {
  if (rawPacket === undefined) return {};
  const match = /^([A-Z]{1,20}) (\S{1,2048}) HTTP\/1\.[01]\r?\n/.exec(rawPacket.toString("latin1", 0, 2100));
  return match ? { method: match[1], path: pathOf(match[2]!) } : {};
}

/**
 * Requests Node's HTTP parser refuses (bad framing, a control byte in a header, headers over the
 * limit) never become a request object. They still get what every answer gets: the JSON Error, a
 * request id, the security headers, the CORS headers when the raw request shows an allowed Origin,
 * and one access-log line; then the connection closes.
 */
export function answerParserErrors(record: RequestRecorder, cors: CorsPolicy) {
  return function answerParserError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket): void {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code);
    const requestId = randomUUID();
    const head = jsonHead(refusal.body, [
      "X-Request-Id",
      requestId,
      ...EVERY_ANSWER_HEADERS.flat(),
      ...cors.headersFor(originOfRawRequest(error.rawPacket)),
      "Connection",
      "close",
    ]);
    let answer = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n`;
    for (let i = 0; i < head.length; i += 2) answer += `${head[i]}: ${head[i + 1]}\r\n`;
    socket.end(`${answer}\r\n${refusal.body}`);
    const { method, path } = requestLineOf(error.rawPacket);
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
