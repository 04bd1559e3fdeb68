import type { IncomingMessage } from "node:http";
import { ErrorCode } from "@plantstore/contract";
import { ApiError } from "./answer.js";
import type { Operation } from "./routing.js";

export type QueryResult = { ok: true; value: Record<string, string> } | { ok: false; refusal: ApiError };

const refuse = (message: string): QueryResult => ({
  ok: false,
  refusal: new ApiError(ErrorCode.INVALID_PARAMETER, message),
});

function shown(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name).slice(1, -1);
}

/**
 * Step 4a: the query string as name → text, before validation. A parameter the operation does
 * not take, or one given twice, is refused here, naming it (the contract's schemas then judge the
 * values). Percent-escapes are decoded as a URL's query is (`+` is a space).
 */
export function readQuery(req: IncomingMessage, operation: Operation): QueryResult {
  const url = req.url ?? "";
  const start = url.indexOf("?");
  const value: Record<string, string> = Object.create(null) as Record<string, string>;
  if (start === -1 || operation.queryNames === "any") return { ok: true, value };
  for (const [name, text] of new URLSearchParams(url.slice(start + 1))) {
    if (!operation.queryNames.has(name)) return refuse(`${shown(name)}: is not a query parameter here`);
    if (name in value) return refuse(`${shown(name)}: must be given at most once`);
    value[name] = text;
  }
  return { ok: true, value };
}
