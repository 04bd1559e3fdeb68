import type { ServerResponse } from "node:http";
import { send } from "../answer.js";

/**
 * The Content-Security-Policy of the server's own pages (the docs page, the web app), whose every
 * asset comes from the server itself, so they work offline: no origin but this one, for anything
 * (scripts from files only: no inline script, no `eval`); images may also be `data:` URLs
 * (Swagger UI's icons, the web app's empty favicon).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** A page or one of its files, under the policy above, never framed, sending no Referer. */
export function sendDocument(
  res: ServerResponse,
  type: string,
  body: string | Buffer,
  cacheControl = "no-cache",
  own: readonly string[] = [],
): void {
  send(
    res,
    200,
    [
      ...own,
      "Content-Type",
      type,
      "Content-Length",
      String(Buffer.byteLength(body)),
      "Cache-Control",
      cacheControl,
      "Content-Security-Policy",
      CONTENT_SECURITY_POLICY,
      "Referrer-Policy",
      "no-referrer",
      "X-Frame-Options",
      "DENY",
    ],
    body,
  );
}
