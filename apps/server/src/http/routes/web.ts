import { readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@plantstore/contract";
import { ApiError, sendError } from "../answer.js";
import { publicRoute, type Operation } from "../routing.js";
import { sendDocument } from "./page.js";
import { staticFilesRoute } from "./static-files.js";

/**
 * The web app (apps/web) at `GET /`: its index.html, and its built files under `/web/assets/`,
 * public like the docs page (the app asks for a token and sends it with each API call). The
 * files are Vite's build output in apps/web/dist, found beside this package in the repository
 * (`npm start` builds both); without a build, `/` says how to make one.
 */
const WEB_DIST = fileURLToPath(new URL("../../../../web/dist/", import.meta.url));

const ASSET_PREFIX = "/web/assets/";

/** The file types Vite's build writes for the app; nothing else is served. */
const TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** A built file name: Vite's `<name>-<hash>.<ext>`, no directory part. */
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/;

const NOT_BUILT = new ApiError(
  ErrorCode.NOT_FOUND,
  "the web app is not built: run `npm start`, or `pnpm --filter @plantstore/web build`",
);
/** index.html names the current build's files: it is read again each time (a rebuild is seen). */
function indexPage(): Buffer | undefined {
  try {
    return readFileSync(join(WEB_DIST, "index.html"));
  } catch {
    return undefined;
  }
}

export function webRoutes(): Operation[] {
  return [
    publicRoute("web", "/", (_req, res) => {
      const page = indexPage();
      if (page === undefined) return sendError(res, NOT_BUILT);
      sendDocument(res, "text/html; charset=utf-8", page);
    }),
    staticFilesRoute({
      id: "web-asset",
      prefix: ASSET_PREFIX,
      pattern: `${ASSET_PREFIX}:file`,
      directory: join(WEB_DIST, "assets"),
      typeOf: (name) => (ASSET_NAME.test(name) ? TYPES[extname(name)] : undefined),
    }),
  ];
}
