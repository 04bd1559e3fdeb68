import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode } from "@plantstore/contract";
import type { Logger } from "../logger.js";
import { OutcomeUnknownError, StorageUnavailableError } from "../store/storage.js";
import { ApiError, sendError } from "./answer.js";

/** Seconds a client is asked to wait before retrying while storage is unavailable. */
const STORAGE_RETRY_AFTER_SECONDS = "2";

const STORAGE_UNAVAILABLE = new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable; retry later", {
  "Retry-After": STORAGE_RETRY_AFTER_SECONDS,
});
const OUTCOME_UNKNOWN = new ApiError(
  ErrorCode.OUTCOME_UNKNOWN,
  "storage failed while committing; the write may have happened: retry it",
  { "Retry-After": STORAGE_RETRY_AFTER_SECONDS },
);
const MALFORMED_REQUEST = new ApiError(ErrorCode.BAD_REQUEST, "the request is malformed");

/**
 * The one place a fault becomes an answer, whichever step raised it: a catalogue Error, never an
 * HTML page or a stack trace. Storage out of reach is a 503 with Retry-After, telling "nothing was
 * changed" (STORAGE_UNAVAILABLE) from "the write may have happened" (OUTCOME_UNKNOWN); anything
 * unexpected a 500 whose details go to the log under the request id. The process keeps serving.
 */
export function answerFault(req: IncomingMessage, res: ServerResponse, error: unknown, logger: Logger): void {
  try {
    sendError(res, answerTo(req, error, logger));
  } catch (writeError) {
    // Not even an Error could be written (the socket broke): end the exchange, keep the process.
    logger.error({ requestId: req.requestId, err: writeError }, "could not answer a fault");
    res.destroy();
  }
}

function answerTo(req: IncomingMessage, error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof OutcomeUnknownError) {
    logger.warn({ requestId: req.requestId, err: error }, "storage failed while committing: outcome unknown");
    return OUTCOME_UNKNOWN;
  }
  if (error instanceof StorageUnavailableError) {
    logger.warn({ requestId: req.requestId, err: error }, "storage unavailable");
    return STORAGE_UNAVAILABLE;
  }
  // Errors Express raises for requests it cannot take (an undecodable %-escape in a path parameter).
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return MALFORMED_REQUEST;
  logger.error({ requestId: req.requestId, err: error }, "unexpected error");
  return new ApiError(ErrorCode.INTERNAL, `internal error; quote request id ${req.requestId}`);
}
