import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER } from "@plantstore/contract";
import type { Logger } from "../logger.js";
import type { CorsPolicy } from "./cors.js";
import type { Metrics } from "../metrics.js";
import { Slots } from "../slots.js";

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

/** The client's X-Request-Id when it is sane (a repeated header arrives joined, which is not), else a new one. */
export function requestIdFrom(sent: string | undefined): string {
  return sent !== undefined && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers["x-request-id"];
  return requestIdFrom(typeof sent === "string" ? sent : undefined);
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
  /** The status the client received; absent when it received no answer at all. */
  status?: number;
  ms: number;
  /** The answer was not complete, and why. */
  aborted?: "client went away" | "cut at the shutdown deadline";
  /** Why Node's HTTP parser refused the request (only for those). */
  parserError?: string;
}

/** Records a finished request: its one access-log line, and its count and latency in the metrics. */
export type RequestRecorder = (line: AccessLogLine) => void;

export function requestRecorder(logger: Logger, metrics: Metrics): RequestRecorder {
  return (line) => {
    logger.info(line, "request");
    metrics.observeRequest(line.operation, line.status ?? "none", line.ms);
  };
}

/**
 * The answers under way, as a graceful shutdown needs them: from its start every answer says
 * `Connection: close`, those already under way included (a client told keep-alive would reuse a
 * connection that the shutdown then closes under its next request), and the access log can tell a
 * request cut at the shutdown deadline from one whose client went away.
 */
export class AnswersInFlight {
  /** In slots, not a Set: see Slots. */
  readonly #unanswered = new Slots<ServerResponse>();
  #closing = false;
  #cut = false;
  #lastKeptAliveAt = Number.NEGATIVE_INFINITY;

  /** True once shutdown has begun. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Shutdown begins: no connection is kept alive past its current answer. */
  closeConnectionsAfterAnswers(): void {
    this.#closing = true;
    for (const res of this.#unanswered.values()) if (!res.headersSent) res.setHeader("Connection", "close");
  }

  /** Shutdown's deadline: what is still under way is about to be cut. */
  cutAtDeadline(): void {
    this.#cut = true;
  }

  /** Milliseconds since the last answer that left its connection open for the client to reuse. */
  msSinceLastKeptAlive(): number {
    return performance.now() - this.#lastKeptAliveAt;
  }

  /** An answer begins; returns its slot, which `end` takes. */
  begin(res: ServerResponse): number {
    if (this.#closing) res.setHeader("Connection", "close");
    return this.#unanswered.put(res);
  }

  /** The exchange is over; how it ended, for its log line. */
  end(res: ServerResponse, slot: number): AccessLogLine["aborted"] {
    this.#unanswered.take(slot);
    if (!res.writableFinished) return this.#cut ? "cut at the shutdown deadline" : "client went away";
    if (!this.#closing) this.#lastKeptAliveAt = performance.now();
    return undefined;
  }
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
  answers: AnswersInFlight,
  cors: CorsPolicy,
): void {
  const startedAt = performance.now();
  const requestId = requestIdOf(req);
  req.requestId = requestId;
  req.operationId = "unmatched";
  res.setHeader("X-Request-Id", requestId);
  for (const [name, value] of EVERY_ANSWER_HEADERS) res.setHeader(name, value);
  cors.apply(req, res);
  const slot = answers.begin(res);
  res.once("close", () => {
    const aborted = answers.end(res, slot);
    const line: AccessLogLine = {
      requestId,
      operation: req.operationId,
      method: req.method,
      path: pathOf(req.url ?? ""),
      ms: elapsedMs(startedAt),
    };
    // `statusCode` is only what would be sent: without a head on the wire the client got nothing.
    if (res.headersSent) line.status = res.statusCode;
    if (aborted !== undefined) line.aborted = aborted;
    record(line);
  });
}
