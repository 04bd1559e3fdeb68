import { isUtf8 } from "node:buffer";
import { ErrorCode, MalformedJsonError, parseJsonWithExactId } from "@plantstore/contract";
import type { NextFunction, Request, Response } from "express";
import { ApiError, sendError } from "./api-error.js";

export interface JsonBodyOptions {
  limitBytes: number;
  timeoutMs: number;
}

/** `application/json`, optionally with `charset=utf-8` (JSON is UTF-8: RFC 8259 §8.1). */
function isJsonUtf8(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  if (contentType === "application/json") return true;
  const [type = "", ...parameters] = contentType.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  return parameters.every((parameter) => {
    const [name = "", value = ""] = parameter.split("=");
    if (name.trim().toLowerCase() !== "charset") return true;
    return /^"?utf-8"?$/i.test(value.trim());
  });
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/**
 * Reads the request body: media type, size limit while streaming (never buffering more than the
 * limit), a deadline for the whole body, UTF-8, then JSON with an exact int64 `id`.
 * Sets `req.body`; every failure is answered here with a catalogue Error.
 */
export function readJsonBody({ limitBytes, timeoutMs }: JsonBodyOptions) {
  return function readJsonBodyMiddleware(req: Request, res: Response, next: NextFunction): void {
    const declaredLength = req.headers["content-length"];
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (!chunked && (declaredLength === undefined || declaredLength === "0")) {
      return sendError(res, new ApiError(ErrorCode.EMPTY_BODY, "a JSON body (NewPlant) is required"));
    }
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      return sendError(
        res,
        new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Encoding ${quoted(encoding)} is not supported`),
        { close: true },
      );
    }
    const contentType = req.headers["content-type"];
    if (!isJsonUtf8(contentType)) {
      const got = contentType === undefined ? "none" : quoted(contentType);
      return sendError(
        res,
        new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Type must be application/json (UTF-8), got ${got}`),
        { close: true },
      );
    }
    const tooLarge = () => new ApiError(ErrorCode.BODY_TOO_LARGE, `the body must be at most ${limitBytes} bytes`);
    if (declaredLength !== undefined && Number(declaredLength) > limitBytes) {
      return sendError(res, tooLarge(), { close: true });
    }

    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error?: ApiError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      if (error) sendError(res, error, { close: true });
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      finish();
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      if (!isUtf8(body)) {
        return sendError(res, new ApiError(ErrorCode.MALFORMED_JSON, "the body is not valid UTF-8"));
      }
      // RFC 8259 §8.1 lets a parser ignore a byte order mark; JSON.parse does not, so drop it.
      const text =
        body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.toString("utf8", 3) : body.toString("utf8");
      if (text.trim() === "") {
        return sendError(res, new ApiError(ErrorCode.EMPTY_BODY, "a JSON body (NewPlant) is required"));
      }
      try {
        req.body = parseJsonWithExactId(text);
      } catch (error) {
        if (!(error instanceof MalformedJsonError)) throw error;
        return sendError(res, new ApiError(ErrorCode.MALFORMED_JSON, `the body is not valid JSON: ${error.message}`));
      }
      next();
    };
    const timer = setTimeout(
      () => finish(new ApiError(ErrorCode.REQUEST_TIMEOUT, `the body did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on("data", onData);
    req.on("end", onEnd);
    // A client that goes away mid-body needs no answer: its timer fires into a closed socket.
  };
}
