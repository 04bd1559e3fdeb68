import { ErrorCode } from "@plantstore/contract";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "../logger.js";
import { StorageUnavailableError } from "../store/storage.js";
import { ApiError, sendError } from "./api-error.js";

/** Seconds a client is asked to wait before retrying while storage is unavailable. */
const RETRY_AFTER_SECONDS = "2";

/**
 * The one place an unexpected failure becomes an answer: a catalogue Error, never an HTML page or
 * a stack trace. Details go to the log under the request id.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (error instanceof ApiError) return sendError(res, error);
    if (error instanceof StorageUnavailableError) {
      logger.warn({ requestId: req.requestId, err: error }, "storage unavailable");
      return sendError(
        res,
        new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable; retry later", {
          "Retry-After": RETRY_AFTER_SECONDS,
        }),
      );
    }
    // Errors Express itself raises for bad requests (e.g. an undecodable %-escape in the path).
    const status = (error as { status?: unknown; statusCode?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return sendError(res, new ApiError(ErrorCode.BAD_REQUEST, "the request is malformed"));
    }
    logger.error({ requestId: req.requestId, err: error }, "unexpected error");
    sendError(res, new ApiError(ErrorCode.INTERNAL, `internal error; quote request id ${req.requestId}`));
  };
}
