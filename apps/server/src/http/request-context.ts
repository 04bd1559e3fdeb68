import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../logger.js";

/** A client-sent X-Request-Id is honoured only when it is short and plain (it ends up in logs). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Marks a request whose context has begun (the bearer gate may begin it before Express runs). */
const REQUEST_ID = Symbol("requestId");

type WithRequestId = IncomingMessage & { [REQUEST_ID]?: string };

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
 * access-log line when the response is finished (or the client went away). Works on plain
 * node:http objects, so that answers given before Express runs carry the same. Idempotent.
 */
export function beginRequest(
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
  isShuttingDown: () => boolean,
): string {
  const known = (req as WithRequestId)[REQUEST_ID];
  if (known !== undefined) return known;
  const started = performance.now();
  const requestId = requestIdOf(req);
  (req as WithRequestId)[REQUEST_ID] = requestId;
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
  return requestId;
}

/** The Express step for `beginRequest`. */
export function requestContext(logger: Logger, isShuttingDown: () => boolean) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    req.requestId = beginRequest(req, res, logger, isShuttingDown);
    next();
  };
}
