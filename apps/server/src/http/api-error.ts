import { ErrorCode, statusOfErrorCode, type ErrorCodeValue } from "@plantstore/contract";
import type { Response } from "express";

/** A failure with its catalogue code; the HTTP status follows from the code. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = statusOfErrorCode(code);
  }
}

/**
 * Writes an Error body. Used for every failure, so that each answer is JSON with a catalogue code.
 * `close` ends the connection afterwards (the request body was not read to its end).
 */
export function sendError(res: Response, error: ApiError, options: { close?: boolean } = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (options.close) res.setHeader("Connection", "close");
  res.status(error.status).json({ error: error.code, message: error.message });
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
