import { ErrorCode } from "@plantstore/contract";
import type { Storage } from "../../store/storage.js";
import type { AnswersInFlight } from "../context.js";
import { ApiError, sendError, sendJson } from "../answer.js";
import { publicRoute, type Operation } from "../routing.js";

const SHUTTING_DOWN = new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "shutting down", { "Retry-After": "1" });
const STORAGE_DOWN = new ApiError(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable", { "Retry-After": "2" });

export interface ProbeDependencies {
  storage: Storage;
  /** `closing` once shutdown has begun: readiness fails. */
  answers: AnswersInFlight;
}

/** Probes for orchestrators: public, no token, no body. */
export function probeRoutes({ storage, answers }: ProbeDependencies): Operation[] {
  const ready = JSON.stringify({ status: "ready", storage: storage.kind });
  return [
    publicRoute("healthz", "/healthz", (_req, res) => sendJson(res, 200, '{"status":"ok"}')),
    publicRoute("readyz", "/readyz", (_req, res, fail) => {
      if (answers.closing) return sendError(res, SHUTTING_DOWN);
      storage
        .ping()
        .then((up) => (up ? sendJson(res, 200, ready) : sendError(res, STORAGE_DOWN)))
        .catch(fail);
    }),
  ];
}
