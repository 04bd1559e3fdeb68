import type { IncomingMessage } from "node:http";
import { ErrorCode } from "@plantstore/contract";
import type { TokenVerifier } from "../tokens/token-verifier.js";
import { ApiError } from "./answer.js";
import type { Operation } from "./routing.js";

const REALM = 'Bearer realm="plantstore"';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Some auth-scheme token followed by a space or the end: another scheme than Bearer was used. */
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;
const BEARER_SCHEME = /^bearer(?: |$)/i;

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

const valid = (ok: boolean): ApiError | undefined => (ok ? undefined : INVALID);

/**
 * Step 3: the bearer check, from the Authorization header alone and before anything reads the
 * body, so an unauthenticated request never learns whether its body was valid. Resolves to the
 * refusal to answer, or undefined to go on. Synchronous unless a miss makes the verifier re-read
 * the token table. Tokens in the query string or the body are never looked at.
 */
export function checkGate(
  req: IncomingMessage,
  operation: Operation,
  verifier: TokenVerifier,
): ApiError | undefined | Promise<ApiError | undefined> {
  if (!operation.authenticated) return undefined;
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") return MISSING;
  const match = BEARER.exec(header);
  if (match === null) {
    // Another scheme (Basic, Digest…) means no bearer credential was sent at all.
    return SCHEME.test(header) && !BEARER_SCHEME.test(header) ? OTHER_SCHEME : MALFORMED;
  }
  const verdict = verifier.verify(match[1]!);
  return typeof verdict === "boolean" ? valid(verdict) : verdict.then(valid);
}
