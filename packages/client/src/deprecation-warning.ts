/**
 * The client's side of deprecation (docs/api.md, "Versioning and deprecation"): when an answer
 * carries `Deprecation` (RFC 9745), the operation is going away. The client says so once per
 * process and operation, with its Sunset day and its deprecation Link when the answer has them:
 * under Node as a process warning (`DeprecationWarning`, code PLANT_STORE_DEPRECATED, which
 * `--no-deprecation` silences), elsewhere on the console.
 */

export const DEPRECATION_WARNING_CODE = "PLANT_STORE_DEPRECATED";

/** The operations (`GET /plants/:id`) this process was already warned about. */
const warned = new Set<string>();

type EmitWarning = (message: string, options: { type: string; code: string }) => void;

export function warnIfDeprecated(headers: Headers, method: string, path: string): void {
  const deprecation = headers.get("deprecation");
  if (deprecation === null) return;
  const operation = `${method} ${path}`;
  if (warned.has(operation)) return;
  warned.add(operation);

  const sunset = headers.get("sunset");
  const link = /<([^>]*)>\s*;\s*rel="?deprecation"?/i.exec(headers.get("link") ?? "")?.[1];
  const message = [
    `Plant Store: ${operation} is deprecated (since ${dayOf(deprecation)})`,
    sunset === null ? "" : `; it may be removed from ${sunset}`,
    link === undefined ? "" : `; see ${link}`,
  ].join("");
  const process = (globalThis as { process?: { emitWarning?: EmitWarning } }).process;
  if (typeof process?.emitWarning === "function") {
    process.emitWarning(message, { type: "DeprecationWarning", code: DEPRECATION_WARNING_CODE });
  } else console.warn(message);
}

/** `@1796083200` (a structured-field date) → `2026-12-01`; anything else as it came. */
function dayOf(deprecation: string): string {
  const seconds = /^@(-?\d{1,15})$/.exec(deprecation.trim())?.[1];
  return seconds === undefined ? deprecation : new Date(Number(seconds) * 1000).toISOString().slice(0, 10);
}
