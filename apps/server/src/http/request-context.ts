import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../logger.js";

/** A client-sent X-Request-Id is honoured only when it is short and plain (it ends up in logs). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set for every request; echoed as X-Request-Id and logged. */
      requestId: string;
    }
  }
}

/** The client's X-Request-Id when it is sane, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers["x-request-id"];
  return typeof sent === "string" && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** The path part of the request URL, for log lines. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * First step of every request: a request id (echoed), headers every answer carries, and one
 * access-log line when the response is finished (or the client went away).
 */
export function requestContext(logger: Logger, isShuttingDown: () => boolean) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    const requestId = requestIdOf(req);
    req.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    // Once shutdown has begun, no connection is kept alive past its current answer.
    if (isShuttingDown()) res.setHeader("Connection", "close");
    res.once("close", () => {
      logger.info(
        {
          requestId,
          method: req.method,
          path: pathOf(req),
          status: res.statusCode,
          ...(res.writableFinished ? {} : { aborted: true }),
          ms: Math.round((performance.now() - started) * 1000) / 1000,
        },
        "request",
      );
    });
    next();
  };
}
