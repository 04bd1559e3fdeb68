import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode, SCOPES, type Scope } from "@plantstore/contract";
import type { Metrics } from "../metrics.js";
import type { Credential, TokenVerifier } from "../tokens/token-verifier.js";
import { ApiError } from "./answer.js";
import { RateLimiter } from "./rate-limit.js";
import type { Operation } from "./routing.js";

declare module "node:http" {
  interface IncomingMessage {
    /** The bearer credential the gate admitted (set for every operation that needs a token). */
    credential?: Credential;
  }
}

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

/** 403 for each scope: constants, like the other refusals. */
const INSUFFICIENT = Object.fromEntries(
  SCOPES.map((scope) => [
    scope,
    new ApiError(ErrorCode.INSUFFICIENT_SCOPE, `the bearer token lacks the scope this operation needs: ${scope}`, {
      "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"`,
    }),
  ]),
) as Record<Scope, ApiError>;

export interface GateDependencies {
  verifier: TokenVerifier;
  /** Undefined when rate limiting is off. */
  limiter: RateLimiter | undefined;
  metrics: Metrics;
}

/**
 * Step 3: the bearer token, from the Authorization header alone and before anything reads the
 * body, so an unauthenticated request never learns whether its body was valid. In order:
 *
 * - the credential: none or another scheme, malformed, unknown or revoked → 401 with the RFC 6750
 *   challenge;
 * - its rate limit, when one is set: every answer to a valid token carries RateLimit-Policy and
 *   RateLimit; over the limit → 429 with Retry-After (a token without the scope is counted too);
 * - its scope: the one the operation needs (from the contract) → else 403 insufficient_scope.
 *
 * Resolves to the refusal to answer, or undefined to go on. Synchronous unless a miss makes the
 * verifier re-read the token table. Tokens in the query string or the body are never looked at.
 */
export function checkGate(
  req: IncomingMessage,
  res: ServerResponse,
  operation: Operation,
  deps: GateDependencies,
): ApiError | undefined | Promise<ApiError | undefined> {
  const { scope } = operation;
  if (scope === undefined) return undefined;
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") return MISSING;
  const match = BEARER.exec(header);
  if (match === null) {
    // Another scheme (Basic, Digest…) means no bearer credential was sent at all.
    return SCHEME.test(header) && !BEARER_SCHEME.test(header) ? OTHER_SCHEME : MALFORMED;
  }
  const admit = (credential: Credential | undefined): ApiError | undefined => {
    if (credential === undefined) return INVALID;
    if (deps.limiter !== undefined) {
      const decision = deps.limiter.take(credential.key);
      res.setHeader("RateLimit-Policy", deps.limiter.policy);
      res.setHeader("RateLimit", RateLimiter.header(decision));
      if (!decision.allowed) {
        deps.metrics.countRateLimited();
        return new ApiError(ErrorCode.RATE_LIMITED, `rate limit exceeded; retry in ${decision.resetSeconds} s`, {
          "Retry-After": String(decision.resetSeconds),
        });
      }
    }
    if (!credential.scopes.has(scope)) return INSUFFICIENT[scope];
    req.credential = credential;
    return undefined;
  };
  const credential = deps.verifier.verify(match[1]!);
  return credential instanceof Promise ? credential.then(admit) : admit(credential);
}
