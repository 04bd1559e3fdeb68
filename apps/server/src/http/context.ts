import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER } from "@plantstore/contract";
import type { Logger } from "../logger.js";
import type { CorsPolicy } from "./cors.js";
import type { Metrics } from "../metrics.js";

/** A client-sent X-Request-Id is honoured only when it is short and plain (it ends up in logs). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Headers every answer carries, whatever produced it (a route, a refusal, a fault, or Node's
 * HTTP parser): never cached, never sniffed, and the version of the contract the server implements
 * (so a client learns it without reading the OpenAPI document). X-Request-Id comes on top.
 */
export const EVERY_ANSWER_HEADERS: readonly (readonly [string, string])[] = [
  ["Cache-Control", "no-store"],
  ["X-Content-Type-Options", "nosniff"],
  [API_VERSION_HEADER, API_VERSION],
];

declare module "node:http" {
  interface IncomingMessage {
    /** Set by the request context for every request; echoed as X-Request-Id and logged. */
    requestId: string;
    /** The operation routing found (`unmatched` until then): a bounded label for logs and metrics. */
    operationId: string;
  }
}

/** The client's X-Request-Id when it is sane, else a new one. */
function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers["x-request-id"];
  return typeof sent === "string" && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** The path part of a request target, for log lines (never the query: it may carry anything). */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

export interface AccessLogLine {
  requestId: string;
  operation: string;
  method: string | undefined;
  path: string | undefined;
  status: number;
  ms: number;
  /** The client went away before the answer was complete. */
  aborted?: true;
  /** Why Node's HTTP parser refused the request (only for those). */
  parserError?: string;
}

/** Records a finished request: its one access-log line, and its count and latency in the metrics. */
export type RequestRecorder = (line: AccessLogLine) => void;

export function requestRecorder(logger: Logger, metrics: Metrics): RequestRecorder {
  return (line) => {
    logger.info(line, "request");
    metrics.observeRequest(line.operation, line.status, line.ms);
  };
}

export function elapsedMs(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000) / 1000;
}

/**
 * Step 1 of every request: a request id (echoed), the security headers, the CORS headers of its
 * origin (so that every answer carries them, refusals and faults included), and one access-log
 * line when the exchange is over (answered, or the client went away).
 */
export function beginRequest(
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecorder,
  shuttingDown: boolean,
  cors: CorsPolicy,
): void {
  const startedAt = performance.now();
  const requestId = requestIdOf(req);
  req.requestId = requestId;
  req.operationId = "unmatched";
  res.setHeader("X-Request-Id", requestId);
  for (const [name, value] of EVERY_ANSWER_HEADERS) res.setHeader(name, value);
  cors.apply(req, res);
  // Once shutdown has begun, no connection is kept alive past its current answer.
  if (shuttingDown) res.setHeader("Connection", "close");
  res.once("close", () => {
    const line: AccessLogLine = {
      requestId,
      operation: req.operationId,
      method: req.method,
      path: pathOf(req.url ?? ""),
      status: res.statusCode,
      ms: elapsedMs(startedAt),
    };
    if (!res.writableFinished) line.aborted = true;
    record(line);
  });
}
