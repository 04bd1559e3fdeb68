import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import type { TokenVerifier } from "../tokens/token-verifier.js";
import { ApiError } from "./api-error.js";
import { checkBearer, closesAfterRefusal } from "./authenticate.js";
import { pathOf, requestIdOf } from "./request-context.js";

export interface BearerGateOptions {
  verifier: TokenVerifier;
  logger: Logger;
  bodyLimitBytes: number;
  isShuttingDown: () => boolean;
}

function isCreatePlant(req: IncomingMessage): boolean {
  if (req.method !== "POST") return false;
  const url = req.url ?? "";
  return url === "/plants" || url.startsWith("/plants?");
}

/**
 * The bearer check for `POST /plants`, in front of Express: a refused request is answered here,
 * with the same headers, body and log line the Express app would give it, and never costs a trip
 * through Express (issue 6: a flood of unauthenticated requests must cost far less than a
 * create). An accepted request is marked, so the app's own bearer step does not check it again;
 * everything else, other spellings of the path included, goes to the app unchanged.
 */
export function bearerGate(app: RequestListener, options: BearerGateOptions): RequestListener {
  const { verifier, logger, bodyLimitBytes, isShuttingDown } = options;
  return function gate(req: IncomingMessage, res: ServerResponse): void {
    if (!isCreatePlant(req)) return void app(req, res);
    const verdict = checkBearer(req, verifier);
    if (verdict === true || !(verdict instanceof ApiError)) return void app(req, res);
    // The answer the app would give (request id, security headers, challenge, JSON Error), written
    // in one go: the refusal is complete when end() returns, so it is logged right here.
    const requestId = requestIdOf(req);
    const headers = [
      "X-Request-Id",
      requestId,
      "Cache-Control",
      "no-store",
      "X-Content-Type-Options",
      "nosniff",
      ...verdict.headerPairs,
      "Content-Type",
      "application/json; charset=utf-8",
      "Content-Length",
      verdict.bodyLength,
    ];
    if (isShuttingDown() || closesAfterRefusal(req, bodyLimitBytes)) headers.push("Connection", "close");
    res.writeHead(verdict.status, headers);
    res.end(verdict.body);
    logger.info({ requestId, method: req.method, path: pathOf(req), status: verdict.status, ms: 0 }, "request");
  };
}
