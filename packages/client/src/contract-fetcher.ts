import { MalformedJsonError, parseExactJson } from "@plantstore/contract";
import { validateResponse, type ApiFetcher } from "@ts-rest/core";
import { warnIfDeprecated } from "./deprecation-warning.js";
import { PlantStoreError } from "./plant-store-error.js";
import type { Transport } from "./transport.js";

/**
 * The ts-rest `api` hook: one HTTP exchange, the response validated against the contract.
 *
 * Why not `tsRestFetchApi` itself: it always calls the global `fetch` (so neither a caller's
 * `fetch` nor the lighter node:http transport could be used), it JSON-encodes the body (throws
 * on a bigint id), it reads answers with `JSON.parse` (ids above 2^53 would lose digits), and it
 * validates only bodies labelled JSON. This hook sends the exact-JSON text the client prepared
 * (passed in as the raw body), reads the answer with the contract's `parseExactJson` (every `id`
 * an exact bigint), and validates every success body with ts-rest's own `validateResponse`.
 */
export function createContractFetcher(transport: Transport): ApiFetcher {
  return async ({ route, path, method, headers, body, rawBody, fetchOptions }) => {
    const response = await transport({
      url: path,
      method,
      headers,
      // The client hands ts-rest the already-serialized body; ts-rest's own `body` is that text
      // JSON-encoded once more (a JSON string literal), so the raw text is what goes on the wire.
      body: typeof rawBody === "string" ? rawBody : typeof body === "string" ? body : undefined,
      signal: fetchOptions?.signal ?? undefined,
    });
    const { status } = response;
    warnIfDeprecated(response.headers, method, route.path);
    const parsed = parseJsonBody(response.text, response.headers.get("content-type"));
    if (status < 200 || status > 299) {
      // Error bodies are read leniently: a proxy's 502 page is still a 502. The client checks
      // them against the Error schema before trusting `error` and `message`.
      return { status, body: parsed, headers: response.headers };
    }
    if (!(status in route.responses)) {
      throw new PlantStoreError({
        kind: "unexpected-response",
        message: `the server answered ${status} to ${method} ${route.path}, which the contract does not allow`,
        status,
      });
    }
    try {
      // A 204 has no body (the contract's `noBody()`, which validation passes through).
      const validated = validateResponse({
        appRoute: route,
        response: { status, body: status === 204 ? undefined : parsed },
      });
      return { status, body: validated.body, headers: response.headers };
    } catch (error) {
      throw new PlantStoreError({
        kind: "unexpected-response",
        message: `the server answered ${status} to ${method} ${route.path} with a body the contract does not allow${firstIssue(error)}`,
        status,
        cause: error,
      });
    }
  };
}

function parseJsonBody(text: string, contentType: string | null): unknown {
  if (!contentType?.toLowerCase().includes("json")) return text;
  try {
    return parseExactJson(text);
  } catch (error) {
    if (error instanceof MalformedJsonError) return text;
    throw error;
  }
}

/** `: <path>: <message>` of the first schema issue, when the validation error has one. */
function firstIssue(error: unknown): string {
  const cause = (error as { cause?: { issues?: Array<{ path: Array<string | number>; message: string }> } }).cause;
  const issue = cause?.issues?.[0];
  if (issue === undefined) return "";
  return issue.path.length === 0 ? `: ${issue.message}` : `: ${issue.path.join(".")}: ${issue.message}`;
}
