import type { ServerResponse } from "node:http";
import { ERROR_MESSAGE_MAX_LENGTH, ErrorCode, statusOfErrorCode, type ErrorCodeValue } from "@plantstore/contract";

const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]/g;

/** An Error's message as the contract describes it: one line, at most ERROR_MESSAGE_MAX_LENGTH. */
function documentedMessage(message: string): string {
  const line = message.replace(CONTROL_CHARACTERS, "\uFFFD");
  return line.length <= ERROR_MESSAGE_MAX_LENGTH ? line : `${line.slice(0, ERROR_MESSAGE_MAX_LENGTH - 1)}…`;
}

/**
 * A refusal or failure with its catalogue code; the HTTP status follows from the code. Not an
 * `Error`: it is an answer, not a fault, and capturing a stack trace for every refused request was
 * the largest cost of a 401. The JSON body is serialized once, so a constant refusal costs one write.
 */
export class ApiError {
  readonly status: number;
  readonly body: string;
  /** The answer's own headers as `[name, value, …]` (what `writeHead` takes). */
  readonly headerPairs: readonly string[];
  constructor(
    readonly code: ErrorCodeValue,
    readonly message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    this.status = statusOfErrorCode(code);
    this.body = JSON.stringify({ error: code, message: documentedMessage(message) });
    this.headerPairs = Object.entries(headers).flat();
  }
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The head of a JSON answer: its own headers, then the body's type and length. */
export function jsonHead(json: string, own: readonly string[] = []): string[] {
  return [...own, "Content-Type", JSON_CONTENT_TYPE, "Content-Length", String(Buffer.byteLength(json))];
}

/**
 * The one writer of answers with a body (routes, probes, metrics, every Error). `writeHead` merges
 * in the headers the request context set; Node itself leaves the body out of an answer to HEAD.
 */
export function send(res: ServerResponse, status: number, head: string[], body: string | Buffer): void {
  res.writeHead(status, head);
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, json: string, own?: readonly string[]): void {
  send(res, status, jsonHead(json, own), json);
}

/**
 * Writes an Error: every refusal (routing, gate, body, validation) and every fault ends here, so
 * each is JSON with a catalogue code. `close` ends the connection afterwards (used when the
 * request body was not read to its end).
 */
export function sendError(res: ServerResponse, error: ApiError, options: { close?: boolean } = {}): void {
  if (res.headersSent) {
    // Half an answer is already on the wire: the only honest end is to cut the connection.
    res.destroy();
    return;
  }
  sendJson(
    res,
    error.status,
    error.body,
    options.close ? [...error.headerPairs, "Connection", "close"] : error.headerPairs,
  );
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
