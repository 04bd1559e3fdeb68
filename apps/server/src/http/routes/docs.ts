import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { sendDocument } from "./page.js";
import { publicRoute, type Operation } from "../routing.js";
import { staticFilesRoute } from "./static-files.js";

/**
 * `GET /docs`: an interactive reference of the served OpenAPI 3.1 document (Swagger UI), public like
 * the document itself. Every asset comes from the `swagger-ui-dist` package in the lockfile and is
 * served from here, so the page works offline and under a strict Content-Security-Policy: scripts,
 * styles and requests from this origin only, no inline code, no `eval`. "Try it out" sends requests
 * to the same server (the document's server is `/`), with the token pasted under "Authorize".
 * The headers every page gets are in page.ts.
 */

const swaggerUiDirectory = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const { version: swaggerUiVersion } = JSON.parse(readFileSync(join(swaggerUiDirectory, "package.json"), "utf8")) as {
  version: string;
};

/** Asset URLs carry the package's version, so a browser may keep them for good. */
const ASSET_PREFIX = `/docs/assets/${swaggerUiVersion}/`;

/** The files the page uses, and their types: nothing else of the package is served. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/** The page's own script: starts Swagger UI on the served 3.1 document (a file, so no inline script). */
const START_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Plant Store API</title>
    <link rel="icon" type="image/png" href="${ASSET_PREFIX}favicon-32x32.png">
    <link rel="stylesheet" href="${ASSET_PREFIX}swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSET_PREFIX}swagger-ui-bundle.js"></script>
    <script src="/docs/start.js"></script>
  </body>
</html>
`;

export function docsRoutes(): Operation[] {
  return [
    publicRoute("docs", "/docs", (_req, res) => sendDocument(res, "text/html; charset=utf-8", PAGE)),
    publicRoute("docs-start", "/docs/start.js", (_req, res) =>
      sendDocument(res, "text/javascript; charset=utf-8", START_SCRIPT),
    ),
    staticFilesRoute({
      id: "docs-asset",
      prefix: ASSET_PREFIX,
      pattern: "/docs/assets/:version/:file",
      directory: swaggerUiDirectory,
      typeOf: (name) => (Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined),
    }),
  ];
}
