import type { Metrics } from "../../metrics.js";
import { send } from "../answer.js";
import type { Operation } from "../routing.js";

/**
 * `GET /metrics`: Prometheus text for a token with `metrics:read`. Not part of the API contract
 * (it is the operator's, not the consumer's), so it is declared here with its scope.
 */
export function metricsRoute(metrics: Metrics): Operation {
  return {
    id: "metrics",
    method: "GET",
    path: "/metrics",
    scope: "metrics:read",
    hasBody: false,
    deprecationHeaders: [],
    queryNames: new Set(),
    handle: (_req, res, fail) => {
      metrics
        .exposition()
        .then(({ contentType, text }) =>
          send(res, 200, ["Content-Type", contentType, "Content-Length", String(Buffer.byteLength(text))], text),
        )
        .catch(fail);
    },
  };
}
