import { ErrorCode, OUTCOME_HEADER, plantStoreContract } from "@plantstore/contract";
import { createExpressEndpoints, initServer } from "@ts-rest/express";
import express, { type Express, type RequestHandler } from "express";
import { ApiError, methodNotAllowed, notFound, sendError } from "./http/api-error.js";
import { installLeanJson } from "./http/lean-express.js";
import { authenticate } from "./http/authenticate.js";
import { errorHandler } from "./http/error-handler.js";
import { readJsonBody } from "./http/json-body.js";
import { requestContext } from "./http/request-context.js";
import { validationMessage } from "./http/validation-message.js";
import type { Logger } from "./logger.js";
import { createPlant } from "./plants/create-plant.js";
import type { Storage } from "./store/storage.js";
import type { TokenVerifier } from "./tokens/token-verifier.js";

export interface AppDependencies {
  storage: Storage;
  tokens: TokenVerifier;
  logger: Logger;
  bodyLimitBytes: number;
  bodyTimeoutMs: number;
  /** The OpenAPI document, serialized once at start. */
  openApiJson: string;
  /** True once shutdown has begun: readiness fails and connections are not kept alive. */
  isShuttingDown: () => boolean;
}

const only =
  (allow: string): RequestHandler =>
  (req, res) =>
    sendError(res, methodNotAllowed(req.method, allow));

/**
 * The Express app: request context → (public probes | bearer check → body reader → contract
 * validation → create-plant) → one error mapper. Nothing here knows SQL. `startServer` puts the
 * bearer gate (http/bearer-gate.ts) in front of it, so refusals of POST /plants skip Express.
 */
export function createServer(deps: AppDependencies): Express {
  const { storage, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", false); // no operation takes query parameters
  installLeanJson(app);

  app.use(requestContext(logger, deps.isShuttingDown));

  // The hot route first: every layer before it is matched on every create.
  const s = initServer();
  const router = s.router(plantStoreContract, {
    createPlant: async ({ body, res }) => {
      const result = await createPlant(storage.plants, body);
      if (result.status === 409) return { status: 409, body: result.body };
      res.setHeader(OUTCOME_HEADER, result.outcome);
      return { status: 200, body: result.body };
    },
  });
  createExpressEndpoints(plantStoreContract, router, app, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: false,
    globalMiddleware: [
      authenticate(deps.tokens, deps.bodyLimitBytes),
      readJsonBody({ limitBytes: deps.bodyLimitBytes, timeoutMs: deps.bodyTimeoutMs }),
    ],
    requestValidationErrorHandler: (error, _req, res) => {
      const message = error.body ? validationMessage(error.body) : "the request is not valid";
      sendError(res, new ApiError(ErrorCode.VALIDATION_FAILED, message));
    },
  });

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res, next) => {
    if (deps.isShuttingDown()) {
      return sendError(res, new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "shutting down", { "Retry-After": "1" }));
    }
    storage.ping().then((up) => {
      if (up) res.json({ status: "ready", storage: storage.kind });
      else
        sendError(res, new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable", { "Retry-After": "2" }));
    }, next);
  });
  app.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(deps.openApiJson);
  });

  app.all("/plants", only("POST"));
  app.all(["/healthz", "/readyz", "/openapi.json"], only("GET, HEAD"));
  app.use((req, res) => sendError(res, notFound(req.method, req.path)));
  app.use(errorHandler(logger));
  return app;
}
