import type { Socket } from "node:net";
import { ErrorCode, type ErrorCodeValue } from "@plantstore/contract";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

function classify(code: string | undefined): [number, ErrorCodeValue, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, ErrorCode.HEADERS_TOO_LARGE, "the request headers are too large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return [408, ErrorCode.REQUEST_TIMEOUT, "the request did not arrive in time"];
  return [400, ErrorCode.BAD_REQUEST, "the HTTP request is malformed"];
}

/**
 * Requests Node's HTTP parser refuses never reach Express; without this they would get an empty
 * 400 with no body. They get the same JSON Error as everything else, then the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = classify(error.code);
  const body = JSON.stringify({ error: code, message });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n" +
      body,
  );
}
