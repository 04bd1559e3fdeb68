import { IncomingMessage, ServerResponse, type ServerOptions } from "node:http";
import type { Socket } from "node:net";
import express, { type Express, type Response } from "express";
import { sendJson } from "./answer.js";

/**
 * An Express 4 app for the contract's operations, without two costs Express adds to every request
 * and without changing what it answers (lean-express.test.ts pins the Express internals this relies
 * on, so an Express upgrade fails a test instead of production):
 *
 * 1. `expressInit` swaps the prototype of every request and response to the app's
 *    (`Object.setPrototypeOf`), which makes V8 give each one a fresh hidden class. `serverOptions`
 *    makes Node create them with that prototype from the start, which turns the swap into a no-op.
 * 2. `res.json` goes through `res.send`: charset rewriting, ETag hashing, freshness checks. Our
 *    answers are small JSON bodies that are never cached (`Cache-Control: no-store`), so `json`
 *    writes them directly through the one JSON writer.
 */
export function createLeanExpressApp(stringify: (body: unknown) => string): {
  app: Express;
  serverOptions: ServerOptions;
} {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  // The pipeline reads the query itself (repeated parameters are refused there): Express's parser
  // only runs when `req.query` is not set yet, and it is switched off for when it would.
  app.set("query parser", false);
  (app.response as Response).json = function json(this: Response, body: unknown) {
    sendJson(this, this.statusCode, stringify(body));
    return this;
  };
  return { app, serverOptions: bornWithPrototypesOf(app) };
}

function bornWithPrototypesOf(app: Express): ServerOptions {
  function ExpressRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;

  function ExpressResponse(this: ServerResponse, req: IncomingMessage) {
    ServerResponse.call(this, req);
  }
  ExpressResponse.prototype = app.response;

  return {
    IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
  };
}
