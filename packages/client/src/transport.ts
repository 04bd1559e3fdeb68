/** One HTTP exchange, the whole answer read: what the contract fetcher needs and nothing more. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
}

export interface TransportResponse {
  status: number;
  headers: Headers;
  text: string;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** A transport over a caller's `fetch` (or any fetch-compatible function). */
export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async ({ url, method, headers, body, signal }) => {
    const response = await fetchImpl(url, { method, headers, body, signal });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
}

/**
 * The global `fetch` (browsers, workers, Deno, Bun; Node when a caller asks), looked up at each
 * request: a page or test that replaces `fetch` later is still heard, and `fetch` is always called
 * as a plain function (a browser's `fetch` refuses any other `this`).
 */
export function globalFetchTransport(): Transport {
  return fetchTransport((input, init) => globalThis.fetch(input, init));
}
