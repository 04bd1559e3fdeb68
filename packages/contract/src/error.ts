import { openApiMeta } from "./openapi-meta.js";
import { z } from "zod";

/**
 * The `error` field of every Error body: one stable int32 code per cause.
 * The leading three digits are the HTTP status the code is sent with, so a client that only
 * knows the status still reads the code correctly. Codes are never renumbered or reused.
 */
export const ErrorCode = {
  /** The body is not JSON (syntax error, invalid UTF-8, a number JSON cannot hold). */
  MALFORMED_JSON: 40001,
  /** The body is JSON but not a valid NewPlant; the message names the field. */
  VALIDATION_FAILED: 40002,
  /** The body is empty. */
  EMPTY_BODY: 40003,
  /** The HTTP request itself is malformed (bad framing, bad header). */
  BAD_REQUEST: 40004,
  /** A path, query or header parameter is invalid, repeated or unknown; the message names it. */
  INVALID_PARAMETER: 40005,
  /** No `Authorization: Bearer …` credential was sent. */
  MISSING_CREDENTIAL: 40101,
  /** The bearer token is unknown or revoked. */
  INVALID_CREDENTIAL: 40102,
  /** The Authorization header is not of the form `Bearer <token>`. */
  MALFORMED_CREDENTIAL: 40103,
  /** The token is valid but lacks the scope the operation needs (see WWW-Authenticate). */
  INSUFFICIENT_SCOPE: 40301,
  /** No such path. */
  NOT_FOUND: 40401,
  /** No plant has this id. */
  PLANT_NOT_FOUND: 40402,
  /** The path exists but not with this method (see the `Allow` header). */
  METHOD_NOT_ALLOWED: 40501,
  /** The body did not arrive in time. */
  REQUEST_TIMEOUT: 40801,
  /** A plant with this id already exists with a different name or tag. */
  ID_CONFLICT: 40901,
  /**
   * `If-Match` named no ETag the plant has now (someone else changed it since it was read), or the
   * plant does not exist; nothing was changed. Read the plant again, and decide again.
   */
  PRECONDITION_FAILED: 41201,
  /** The body is larger than the server's limit. */
  BODY_TOO_LARGE: 41301,
  /** The body is not `application/json` in UTF-8, or is content-encoded. */
  UNSUPPORTED_MEDIA_TYPE: 41501,
  /** The token made more requests than its rate limit allows; retry after `Retry-After` seconds. */
  RATE_LIMITED: 42901,
  /** The request headers are larger than the server accepts. */
  HEADERS_TOO_LARGE: 43101,
  /** An unexpected server fault; details are in the server log under the request id. */
  INTERNAL: 50001,
  /** Storage is unreachable and nothing was changed; retry later (the `Retry-After` header says when). */
  STORAGE_UNAVAILABLE: 50301,
  /**
   * Storage failed while a write was being committed (the database connection was lost, or the
   * commit outlasted its time limit): the write may or may not have happened. Retrying is safe (every
   * write is idempotent), but a retry's answer may be about this request's own effect: a delete
   * retried after this may answer PLANT_NOT_FOUND because this request deleted the plant.
   */
  OUTCOME_UNKNOWN: 50302,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** The HTTP status each code is sent with. */
export function statusOfErrorCode(code: ErrorCodeValue): number {
  return Math.trunc(code / 100);
}

/** One line per code, for documentation (docs/api.md, the OpenAPI description). */
export const errorCatalogue: ReadonlyArray<{ code: ErrorCodeValue; name: ErrorCodeName; status: number }> = (
  Object.entries(ErrorCode) as Array<[ErrorCodeName, ErrorCodeValue]>
).map(([name, code]) => ({
  code,
  name,
  status: statusOfErrorCode(code),
}));

/** The longest `message` an Error carries (the server shortens longer ones). */
export const ERROR_MESSAGE_MAX_LENGTH = 1024;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const ErrorBody = openApiMeta(
  z.object({
    error: openApiMeta(z.number().int().min(INT32_MIN).max(INT32_MAX), {
      format: "int32",
      description: "Numeric error value: a stable code from the error catalogue.",
      example: ErrorCode.VALIDATION_FAILED,
    }),
    message: openApiMeta(z.string().max(ERROR_MESSAGE_MAX_LENGTH), {
      pattern: "^[^\\u0000-\\u001F\\u007F]*$",
      description: `Human-readable error message, one line of at most ${ERROR_MESSAGE_MAX_LENGTH} characters; it names the offending field where there is one.`,
      example: "name: must be at most 256 characters",
    }),
  }),
  { title: "Error" },
);

export type ErrorBody = z.infer<typeof ErrorBody>;
