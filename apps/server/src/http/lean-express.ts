import { IncomingMessage, ServerResponse, type ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { Express, Response } from "express";

/**
 * Two costs Express 4 adds to every request, removed without changing what it answers:
 *
 * 1. `expressInit` swaps the prototype of every request and response to the app's
 *    (`Object.setPrototypeOf`), which makes V8 give each one a fresh hidden class. Creating them
 *    with that prototype from the start turns the swap into a no-op.
 * 2. `res.json` goes through `res.send`: charset rewriting, ETag hashing, freshness checks, HEAD
 *    handling. Our answers are small JSON bodies that are never cached (`Cache-Control: no-store`),
 *    so `json` writes them directly.
 */
export function leanHttpOptions(app: Express): ServerOptions {
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

export function installLeanJson(app: Express): void {
  (app.response as Response).json = function json(this: Response, body: unknown) {
    const text = JSON.stringify(body);
    this.setHeader("Content-Type", "application/json; charset=utf-8");
    this.setHeader("Content-Length", Buffer.byteLength(text));
    this.end(this.req.method === "HEAD" ? undefined : text);
    return this;
  };
}
