import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * CORS (the Fetch standard's protocol), off unless PLANTSTORE_CORS_ORIGINS lists origins: pages
 * on those exact origins may call the API from a browser with a bearer token. Never
 * `Access-Control-Allow-Credentials`: the API reads no cookie, so there is nothing a browser
 * should attach on its own, and a page must hold the token to send it.
 */

/** The request headers a page may send (Authorization is never covered by a `*`, so all are named). */
const ALLOWED_HEADERS = "Authorization, Content-Type, X-Request-Id, If-Match, If-None-Match";

/** The answer headers a page's script may read beside the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  "Link",
  "X-Request-Id",
  "Plant-Store-Outcome",
  "Plant-Store-Count",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "WWW-Authenticate",
  "ETag",
].join(", ");

/** How long a browser may reuse a preflight's answer (seconds): a changed server is seen within 10 minutes. */
const PREFLIGHT_MAX_AGE_SECONDS = "600";

export class CorsPolicy {
  private readonly origins: ReadonlySet<string>;

  /** `origins`: exact, serialized origins (`https://app.example.com`), as config.ts checked them. */
  constructor(origins: readonly string[]) {
    this.origins = new Set(origins);
  }

  get enabled(): boolean {
    return this.origins.size > 0;
  }

  /** The request's Origin when it is one of the allowed ones. */
  allowedOrigin(origin: string | string[] | undefined): string | undefined {
    return typeof origin === "string" && this.origins.has(origin) ? origin : undefined;
  }

  /**
   * The CORS headers of any answer to a request from `origin` (the parser's refusals included), as
   * `[name, value, …]`: none when CORS is off; `Vary: Origin` on every answer when it is on (the
   * answer depends on the Origin), and the allowing headers when the origin is allowed.
   */
  headersFor(origin: string | string[] | undefined): string[] {
    if (!this.enabled) return [];
    const allowed = this.allowedOrigin(origin);
    if (allowed === undefined) return ["Vary", "Origin"];
    return ["Vary", "Origin", "Access-Control-Allow-Origin", allowed, "Access-Control-Expose-Headers", EXPOSED_HEADERS];
  }

  /** Step 1, for every request: the CORS headers of its answer, whatever answers it. */
  apply(req: IncomingMessage, res: ServerResponse): void {
    const headers = this.headersFor(req.headers.origin);
    for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
  }

  /**
   * A preflight this policy answers: OPTIONS with Access-Control-Request-Method from an allowed
   * origin. Any other OPTIONS (CORS off, another origin, no requested method) is routed as always.
   */
  isPreflight(req: IncomingMessage): boolean {
    return (
      req.method === "OPTIONS" &&
      req.headers["access-control-request-method"] !== undefined &&
      this.allowedOrigin(req.headers.origin) !== undefined
    );
  }
}

/**
 * The answer to a preflight for a known path: 204, no token needed, with the path's methods as
 * routing knows them (`methods`, as in its `Allow`). The allowing headers are already set (step 1).
 */
export function answerPreflight(res: ServerResponse, methods: string): void {
  res.writeHead(204, [
    "Access-Control-Allow-Methods",
    methods,
    "Access-Control-Allow-Headers",
    ALLOWED_HEADERS,
    "Access-Control-Max-Age",
    PREFLIGHT_MAX_AGE_SECONDS,
  ]);
  res.end();
}

/** The Origin header of a request Node's parser refused, from its raw bytes (undefined if not there). */
export function originOfRawRequest(rawPacket: Buffer | undefined): string | undefined {
  if (rawPacket === undefined) return undefined;
  const match = /\r\norigin:[ \t]*([^\r\n]{1,200}?)[ \t]*\r\n/i.exec(rawPacket.toString("latin1", 0, 16_384));
  return match?.[1];
}
