import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { ErrorCode, MalformedJsonError, parseExactJson } from "@plantstore/contract";
import { ApiError } from "./answer.js";

export interface BodyLimits {
  limitBytes: number;
  timeoutMs: number;
}

/** The JSON value of the body, or the refusal to answer (`close`: the body was not read to its end). */
export type BodyResult = { ok: true; value: unknown } | { ok: false; refusal: ApiError; close: boolean };

const EMPTY = new ApiError(ErrorCode.EMPTY_BODY, "the body is empty; a JSON body is required");
const NOT_UTF8 = new ApiError(ErrorCode.MALFORMED_JSON, "the body is not valid UTF-8");

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
 * True when a refusal sent before the body is read should close the connection: Node discards a
 * small unread body and keeps the connection, but a large or unbounded one is not worth receiving.
 */
export function unreadBodyIsLarge(req: IncomingMessage, limitBytes: number): boolean {
  const declared = req.headers["content-length"];
  if (declared === undefined) return req.headers["transfer-encoding"] !== undefined;
  return Number(declared) > limitBytes;
}

/** The checks that need only the headers: a body is there, not encoded, JSON in UTF-8, not too large. */
function checkHeaders(req: IncomingMessage, limitBytes: number): ApiError | undefined {
  const declaredLength = req.headers["content-length"];
  if (req.headers["transfer-encoding"] === undefined && (declaredLength === undefined || declaredLength === "0")) {
    return EMPTY;
  }
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    return new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Encoding ${quoted(encoding)} is not supported`);
  }
  const contentType = req.headers["content-type"];
  if (!isJsonUtf8(contentType)) {
    const got = contentType === undefined ? "none" : quoted(contentType);
    return new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Type must be application/json (UTF-8), got ${got}`);
  }
  if (declaredLength !== undefined && Number(declaredLength) > limitBytes) return tooLarge(limitBytes);
  return undefined;
}

const tooLarge = (limitBytes: number) =>
  new ApiError(ErrorCode.BODY_TOO_LARGE, `the body must be at most ${limitBytes} bytes`);

/** Bytes → JSON value with an exact int64 `id`, or the refusal. */
function parse(body: Buffer): BodyResult {
  if (!isUtf8(body)) return { ok: false, refusal: NOT_UTF8, close: false };
  // RFC 8259 §8.1 lets a parser ignore a byte order mark; JSON.parse does not, so drop it.
  const text =
    body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.toString("utf8", 3) : body.toString("utf8");
  if (text.trim() === "") return { ok: false, refusal: EMPTY, close: false };
  try {
    return { ok: true, value: parseExactJson(text) };
  } catch (error) {
    if (!(error instanceof MalformedJsonError)) throw error;
    const refusal = new ApiError(ErrorCode.MALFORMED_JSON, `the body is not valid JSON: ${error.message}`);
    return { ok: false, refusal, close: false };
  }
}

/**
 * Step 4: reads the request body. Media type first, then the size limit while streaming (never
 * buffering more than the limit), a deadline for the whole body, UTF-8, and JSON with an exact
 * int64 `id`. Resolves to the value or the refusal; rejects only on a fault, never throws inside a
 * stream listener (where no one could catch it). A client that goes away mid-body resolves to a
 * refusal nobody will read.
 */
export function readBody(req: IncomingMessage, { limitBytes, timeoutMs }: BodyLimits): Promise<BodyResult> {
  const early = checkHeaders(req, limitBytes);
  if (early !== undefined) {
    return Promise.resolve({ ok: false, refusal: early, close: unreadBodyIsLarge(req, limitBytes) });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (outcome: () => BodyResult) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) settle(() => ({ ok: false, refusal: tooLarge(limitBytes), close: true }));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => parse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)));
    // The client went away (or the socket failed) mid-body: nobody is left to answer.
    const onError = () => settle(() => ({ ok: false, refusal: EMPTY, close: true }));
    const timer = setTimeout(() => {
      const refusal = new ApiError(ErrorCode.REQUEST_TIMEOUT, `the body did not arrive within ${timeoutMs} ms`);
      settle(() => ({ ok: false, refusal, close: true }));
    }, timeoutMs);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}
