import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { plantStoreContract, stringifyExactJson } from "@plantstore/contract";
import { createExpressEndpoints } from "@ts-rest/express";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Storage } from "../store/storage.js";
import type { TokenVerifier } from "../tokens/token-verifier.js";
import { sendError } from "./answer.js";
import { readBody, unreadBodyIsLarge } from "./body.js";
import { beginRequest, requestRecorder } from "./context.js";
import { answerPreflight, CorsPolicy } from "./cors.js";
import { answerFault } from "./faults.js";
import { checkGate } from "./gate.js";
import { createLeanExpressApp } from "./lean-express.js";
import { answerParserErrors } from "./parser-errors.js";
import type { ChangeFeed } from "../changes/change-feed.js";
import { changeStreamHandler } from "./routes/changes.js";
import { plantRoutes } from "./routes/plants.js";
import { readQuery } from "./query.js";
import type { RateLimiter } from "./rate-limit.js";
import { docsRoutes } from "./routes/docs.js";
import { metricsRoute } from "./routes/metrics.js";
import { openApiRoutes } from "./routes/openapi.js";
import { probeRoutes } from "./routes/probes.js";
import { webRoutes } from "./routes/web.js";
import { contractOperations, Routes, type Operation } from "./routing.js";
import { bodySchemaName, validationRefusal } from "./validation.js";

export interface PipelineDependencies {
  storage: Storage;
  /** This instance's change streams (GET /plants/changes). */
  changes: ChangeFeed;
  tokens: TokenVerifier;
  /** Per-token request limits; undefined when off. */
  limiter: RateLimiter | undefined;
  logger: Logger;
  metrics: Metrics;
  bodyLimitBytes: number;
  bodyTimeoutMs: number;
  /** Origins whose pages may call the API (PLANTSTORE_CORS_ORIGINS); none: CORS off. */
  corsOrigins: readonly string[];
  /** True once shutdown has begun: readiness fails and connections are not kept alive. */
  isShuttingDown: () => boolean;
}

export interface Pipeline {
  /** Options for `http.createServer`: requests and responses born with Express's prototypes. */
  serverOptions: ServerOptions;
  /** Every request, through the steps below. */
  handleRequest: RequestListener;
  /** What Node's HTTP parser refuses never becomes a request; it is answered here. */
  handleParserError: (error: Error, socket: Socket) => void;
}

/**
 * The whole path of a request, in the order it runs. Each step is a function in the file named
 * after it; a step that refuses the request answers it and the path ends there.
 *
 *   1. context     context.ts        request id, security and CORS headers, one log line and metrics
 *      preflight   cors.ts           an allowed origin's CORS preflight: 204 with the path's methods
 *   2. route       routing.ts        which operation (from the contract): 404, 405
 *   3. gate        gate.ts           bearer token, rate limit, scope, before the body is read: 401 429 403
 *   4. input       query.ts          query parameters: unknown or repeated ones 400
 *                  body.ts           media type, size, deadline, UTF-8, exact JSON: 400 408 413 415
 *   5. validation  validation.ts     the contract's schemas, applied by ts-rest: 400 naming the field
 *   6. handler     routes/*.ts       use case (plants/) → outcome → status, headers, body
 *   7. answer      answer.ts         the one writer of every answer, refusal and fault alike
 *
 * A fault thrown or rejected in any step, Express's included, reaches `answerFault` (faults.ts):
 * a JSON 500 (or 503 while storage is out of reach), and the server keeps serving.
 */
export function createPipeline(deps: PipelineDependencies): Pipeline {
  const { logger } = deps;
  const record = requestRecorder(logger, deps.metrics);
  const fault = (req: IncomingMessage, res: ServerResponse) => (error: unknown) => answerFault(req, res, error, logger);
  const gate = { verifier: deps.tokens, limiter: deps.limiter, metrics: deps.metrics };
  const bodyLimits = { limitBytes: deps.bodyLimitBytes, timeoutMs: deps.bodyTimeoutMs };
  const cors = new CorsPolicy(deps.corsOrigins);

  // Steps 5–7 for the contract's operations run in Express, where ts-rest applies the contract.
  // The change stream is the one operation ts-rest cannot answer (a stream): it has its own handler.
  const { app: contractApp, serverOptions } = createLeanExpressApp(stringifyExactJson);
  const { streamPlantChanges: _stream, ...jsonOperations } = plantStoreContract;
  createExpressEndpoints(jsonOperations, plantRoutes(deps.storage, deps.metrics), contractApp, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: false,
    requestValidationErrorHandler: (error, req, res) =>
      sendError(res, validationRefusal(error, bodySchemaName(req.operationId))),
  });
  const expressFault: ErrorRequestHandler = (error, req, res, _next) => answerFault(req, res, error, logger);
  contractApp.use(expressFault);

  // Requests and responses are born with Express's prototypes (serverOptions), so they are its own.
  const intoExpress: Operation["handle"] = (req, res, fail) => contractApp(req as Request, res as Response, fail);
  const routes = new Routes([
    ...contractOperations(plantStoreContract, intoExpress, {
      streamPlantChanges: changeStreamHandler(deps.changes, deps.tokens),
    }),
    ...probeRoutes(deps),
    ...openApiRoutes(),
    ...docsRoutes(),
    ...webRoutes(),
    metricsRoute(deps.metrics),
  ]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    beginRequest(req, res, record, deps.isShuttingDown(), cors); // 1. context

    // A preflight for a path no route has goes on to routing's 404; any other OPTIONS to its 405.
    const preflightAllow = cors.isPreflight(req) ? routes.allowAt(req) : undefined;
    if (preflightAllow !== undefined) return answerPreflight(res, preflightAllow);

    const operation = routes.match(req); // 2. route
    if (!("handle" in operation)) return sendError(res, operation);
    req.operationId = operation.id;

    const refusal = await checkGate(req, res, operation, gate); // 3. gate
    if (refusal !== undefined) return sendError(res, refusal, { close: unreadBodyIsLarge(req, deps.bodyLimitBytes) });

    const query = readQuery(req, operation); // 4. input: query, then body
    if (!query.ok) return sendError(res, query.refusal, { close: unreadBodyIsLarge(req, deps.bodyLimitBytes) });
    (req as IncomingMessage & { query: unknown }).query = query.value;
    if (operation.hasBody) {
      const body = await readBody(req, bodyLimits);
      if (!body.ok) return sendError(res, body.refusal, { close: body.close });
      (req as IncomingMessage & { body: unknown }).body = body.value;
    }

    operation.handle(req, res, fault(req, res)); // 5–7. validation → handler → answer
  }

  return {
    serverOptions,
    handleRequest: (req, res) => void handle(req, res).catch(fault(req, res)),
    handleParserError: answerParserErrors(record, cors),
  };
}
