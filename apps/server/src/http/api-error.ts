import { ErrorCode, statusOfErrorCode, type ErrorCodeValue } from "@plantstore/contract";
import type { ServerResponse } from "node:http";

/**
 * A failure with its catalogue code; the HTTP status follows from the code. Not an `Error`: it is
 * an answer, not a fault, and capturing a stack trace for every refused request was the largest
 * cost of a 401. The JSON body is serialized once, so a constant refusal costs one write.
 */
export class ApiError {
  readonly status: number;
  readonly body: string;
  readonly bodyLength: string;
  /** `headers` flattened to [name, value, …], as `writeHead` takes them. */
  readonly headerPairs: readonly string[];
  constructor(
    readonly code: ErrorCodeValue,
    readonly message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    this.status = statusOfErrorCode(code);
    this.body = JSON.stringify({ error: code, message });
    this.bodyLength = String(Buffer.byteLength(this.body));
    this.headerPairs = Object.entries(headers).flat();
  }
}

/**
 * Writes an Error body. Used for every failure, so that each answer is JSON with a catalogue code.
 * `close` ends the connection afterwards (the request body was not read to its end).
 */
export function sendError(res: ServerResponse, error: ApiError, options: { close?: boolean } = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name in error.headers) res.setHeader(name, error.headers[name]!);
  if (options.close) res.setHeader("Connection", "close");
  res.statusCode = error.status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(error.body));
  res.end(error.body);
}

export const notFound = (method: string, path: string) =>
  new ApiError(
    ErrorCode.NOT_FOUND,
    `no such resource: ${method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}`,
  );

export const methodNotAllowed = (method: string, allow: string) =>
  new ApiError(ErrorCode.METHOD_NOT_ALLOWED, `method ${method} is not allowed here; allowed: ${allow}`, {
    Allow: allow,
  });
