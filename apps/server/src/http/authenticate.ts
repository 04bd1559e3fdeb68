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

/**
 * The bearer check, before anything reads the body: an unauthenticated request never learns
 * whether its body was valid. Tokens in the query string or body are not looked at.
 */
export function authenticate(verifier: TokenVerifier, bodyLimitBytes: number) {
  return function authenticateMiddleware(req: Request, res: Response, next: NextFunction): void {
    // Node discards a small unread body and keeps the connection; a large or unbounded one is not
    // worth receiving for a refusal, so that connection is closed.
    const reject = (error: ApiError) => {
      const declared = req.headers["content-length"];
      const close =
        declared === undefined ? req.headers["transfer-encoding"] !== undefined : Number(declared) > bodyLimitBytes;
      sendError(res, error, { close });
    };
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === "") return reject(MISSING);
    const match = BEARER.exec(header);
    if (match === null) {
      // Another scheme (Basic, Digest…): no bearer credential was sent.
      return reject(SCHEME.test(header) && !/^bearer(?: |$)/i.test(header) ? OTHER_SCHEME : MALFORMED);
    }
    const verdict = verifier.verify(match[1]!);
    if (verdict === true) return next();
    if (verdict === false) return reject(INVALID);
    verdict.then((valid) => (valid ? next() : reject(INVALID)), next);
  };
}
