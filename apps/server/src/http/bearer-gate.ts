import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import type { TokenVerifier } from "../tokens/token-verifier.js";
import { ApiError } from "./api-error.js";
import { checkBearer, refuse } from "./authenticate.js";
import { beginRequest } from "./request-context.js";

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
    beginRequest(req, res, logger, isShuttingDown);
    refuse(req, res, verdict, bodyLimitBytes);
  };
}
