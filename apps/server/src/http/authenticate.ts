import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode } from "@plantstore/contract";
import type { NextFunction, Request, Response } from "express";
import type { TokenVerifier } from "../tokens/token-verifier.js";
import { ApiError, sendError } from "./api-error.js";

const REALM = 'Bearer realm="plantstore"';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;

function challenge(error?: string): Record<string, string> {
  return { "WWW-Authenticate": error ? `${REALM}, error="${error}"` : REALM };
}

// The refusals are constants: built (and serialized) once, not per request.
const MISSING = new ApiError(ErrorCode.MISSING_CREDENTIAL, "a bearer token is required", challenge());
const OTHER_SCHEME = new ApiError(
  ErrorCode.MISSING_CREDENTIAL,
  "a bearer token is required (Authorization: Bearer <token>)",
  challenge(),
);
const MALFORMED = new ApiError(
  ErrorCode.MALFORMED_CREDENTIAL,
  "the Authorization header must be of the form: Bearer <token>",
  challenge("invalid_request"),
);
const INVALID = new ApiError(ErrorCode.INVALID_CREDENTIAL, "the bearer token is not valid", challenge("invalid_token"));

/** Marks a request whose credential was already accepted (by the gate in front of Express). */
const AUTHENTICATED = Symbol("authenticated");

type Verdict = true | ApiError;

/**
 * The bearer decision, from the Authorization header alone: true, or the refusal to send.
 * Tokens in the query string or body are never looked at. Synchronous unless a miss makes the
 * verifier re-read the token table.
 */
export function checkBearer(req: IncomingMessage, verifier: TokenVerifier): Verdict | Promise<Verdict> {
  if ((req as IncomingMessage & { [AUTHENTICATED]?: true })[AUTHENTICATED]) return true;
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") return MISSING;
  const match = BEARER.exec(header);
  if (match === null) {
    // Another scheme (Basic, Digest…): no bearer credential was sent.
    return SCHEME.test(header) && !/^bearer(?: |$)/i.test(header) ? OTHER_SCHEME : MALFORMED;
  }
  const valid = verifier.verify(match[1]!);
  const verdict = (ok: boolean): Verdict => {
    if (!ok) return INVALID;
    (req as IncomingMessage & { [AUTHENTICATED]?: true })[AUTHENTICATED] = true;
    return true;
  };
  return typeof valid === "boolean" ? verdict(valid) : valid.then(verdict);
}

/**
 * Answers a refusal. Node discards a small unread body and keeps the connection; a large or
 * unbounded one is not worth receiving for a refusal, so that connection is closed.
 */
export function refuse(req: IncomingMessage, res: ServerResponse, error: ApiError, bodyLimitBytes: number): void {
  sendError(res, error, { close: closesAfterRefusal(req, bodyLimitBytes) });
}

export function closesAfterRefusal(req: IncomingMessage, bodyLimitBytes: number): boolean {
  const declared = req.headers["content-length"];
  return declared === undefined ? req.headers["transfer-encoding"] !== undefined : Number(declared) > bodyLimitBytes;
}

/**
 * The bearer check as an Express step, before anything reads the body: an unauthenticated request
 * never learns whether its body was valid.
 */
export function authenticate(verifier: TokenVerifier, bodyLimitBytes: number) {
  return function authenticateMiddleware(req: Request, res: Response, next: NextFunction): void {
    const verdict = checkBearer(req, verifier);
    if (verdict === true) return next();
    if (verdict instanceof ApiError) return refuse(req, res, verdict, bodyLimitBytes);
    verdict.then((settled) => (settled === true ? next() : refuse(req, res, settled, bodyLimitBytes)), next);
  };
}
