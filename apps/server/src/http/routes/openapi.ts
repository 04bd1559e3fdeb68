import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { sendJson } from "../answer.js";
import { publicRoute, type Operation } from "../routing.js";

/**
 * The OpenAPI documents, public like the probes: `/openapi.json` (3.1.0) and `/openapi-3.0.json`
 * (for tools that read only 3.0). They are the contract package's committed files, read once at
 * start and served byte for byte: what consumers fetch is what the drift test checked.
 */
export function openApiRoutes(): Operation[] {
  const resolve = createRequire(import.meta.url).resolve;
  return [
    ["openapi", "/openapi.json", "@plantstore/contract/openapi.json"],
    ["openapi-3.0", "/openapi-3.0.json", "@plantstore/contract/openapi-3.0.json"],
  ].map(([id, path, file]) => {
    const json = readFileSync(resolve(file!), "utf8");
    return publicRoute(id!, path!, (_req, res) => sendJson(res, 200, json));
  });
}
