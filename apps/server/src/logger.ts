import { destination, pino, type Logger } from "pino";
import type { LogLevel } from "./config.js";

export type { Logger };

/**
 * JSON lines on stdout. The destination writes asynchronously: while one write is in flight, later
 * lines gather and go out together, so a line per request does not cost a syscall per request
 * under load. `logger.flush()` runs before exit.
 */
export function createLogger(level: LogLevel): Logger {
  return pino(
    {
      level,
      base: { service: "plantstore" },
      // Nothing logs headers wholesale; if anything ever does, the credential is gone.
      redact: { paths: ["req.headers.authorization", "headers.authorization", "authorization"], censor: "[redacted]" },
    },
    destination({ dest: 1, sync: false }),
  );
}
