import { validateResponse, type ApiFetcher } from "@ts-rest/core";
import { PlantStoreError } from "./plant-store-error.js";
import type { Transport } from "./transport.js";

/**
 * The ts-rest `api` hook: one HTTP exchange, the response validated against the contract.
 *
 * Why not `tsRestFetchApi` itself: it always calls the global `fetch` (so neither a caller's
 * `fetch` nor the lighter node:http transport could be used), it JSON-encodes the body (throws
 * on a bigint id), and it validates only bodies labelled JSON. This hook sends the exact-JSON
 * text the client prepared (passed in as the raw body), reads the body itself, and validates
 * the 200 body with ts-rest's own `validateResponse`.
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
    const parsed = parseJsonBody(response.text, response.headers.get("content-type"));
    if (response.status !== 200) {
      // Error bodies are read leniently: a proxy's 502 page is still a 502. The client checks
      // them against the Error schema before trusting `error` and `message`.
      return { status: response.status, body: parsed, headers: response.headers };
    }
    try {
      const validated = validateResponse({ appRoute: route, response: { status: 200, body: parsed } });
      return { status: 200, body: validated.body, headers: response.headers };
    } catch (error) {
      throw new PlantStoreError({
        kind: "unexpected-response",
        message: "the server answered 200 with a body that is not a Plant",
        status: 200,
        cause: error,
      });
    }
  };
}

function parseJsonBody(text: string, contentType: string | null): unknown {
  if (!contentType?.toLowerCase().includes("json")) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
