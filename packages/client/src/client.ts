import {
  ErrorBody,
  OUTCOME_HEADER as PLANT_OUTCOME_HEADER,
  plantStoreContract,
  stringifyExactJson,
  type NewPlantInput,
  type Plant,
} from "@plantstore/contract";
import { initClient } from "@ts-rest/core";
import { createContractFetcher } from "./contract-fetcher.js";
import { PlantStoreError } from "./plant-store-error.js";
import { fetchTransport, nodeHttpTransport } from "./transport.js";
import { DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, retryDelayMs, sleep, type RetryOptions } from "./retry-policy.js";

export interface PlantStoreClientOptions {
  /** The server's base address, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The bearer token. It is sent in the Authorization header and nowhere else. */
  token: string;
  /** Send requests with this `fetch` (default: node:http with keep-alive, see transport.ts). */
  fetch?: typeof fetch;
  /** Time limit of one attempt, from sending to the end of the answer (default 10 s). */
  timeoutMs?: number;
  /** Retry tuning, or `false` for a single attempt. */
  retry?: Partial<RetryOptions> | false;
}

export interface CallOptions {
  /** Cancels the call: the attempt in flight and any wait before a retry. */
  signal?: AbortSignal;
}

/**
 * What the server did with a create that answered 200:
 * - `created`: this call stored the plant;
 * - `replayed`: the identical plant was already stored before this call;
 * - `unknown`: the server did not say (no `Plant-Store-Outcome` header), or an earlier attempt of
 *   this same call may have reached the server, so its replay may be of this call's own create.
 */
export type CreateOutcome = "created" | "replayed" | "unknown";

export interface CreatePlantResult {
  /** The plant as stored (the response body: no id). */
  plant: Plant;
  outcome: CreateOutcome;
  /** Requests made, 1 when the first attempt succeeded. */
  attempts: number;
}

export interface PlantStoreClient {
  /** Creates a plant, retrying transient failures; throws a `PlantStoreError` on failure. */
  createPlant(newPlant: NewPlantInput, options?: CallOptions): Promise<CreatePlantResult>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const OUTCOME_HEADER = PLANT_OUTCOME_HEADER.toLowerCase();

/** The reason an attempt's own timer aborts it, told apart from the caller's abort. */
class AttemptTimeout extends Error {}

export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) throw new TypeError("timeoutMs must be a positive number");
  const retry: RetryOptions =
    options.retry === false ? { ...DEFAULT_RETRY_OPTIONS, retries: 0 } : { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
  const tsRestClient = initClient(plantStoreContract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${options.token}` },
    api: createContractFetcher(options.fetch ? fetchTransport(options.fetch) : nodeHttpTransport()),
    validateResponse: true,
  });

  /** One request: resolves to the 200 result or to the failure; throws only when the caller cancelled. */
  async function attempt(jsonText: string, signal: AbortSignal | undefined): Promise<AttemptResult> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const response = await tsRestClient.createPlant({
        // Already exact JSON text (see contract-fetcher.ts); ts-rest's body type is the object form.
        body: jsonText as unknown as NewPlantInput,
        fetchOptions: { signal: controller.signal },
      });
      if (response.status === 200) {
        return { ok: true, plant: response.body, outcomeHeader: response.headers.get(OUTCOME_HEADER) };
      }
      return {
        ok: false,
        error: errorFromStatus(response.status, response.body),
        retryAfterMs: parseRetryAfterMs(response.headers.get("retry-after")),
      };
    } catch (error) {
      if (error instanceof PlantStoreError) return { ok: false, error, retryAfterMs: undefined };
      if (signal?.aborted) {
        throw new PlantStoreError({ kind: "aborted", message: "the create was cancelled", cause: signal.reason });
      }
      if (controller.signal.reason instanceof AttemptTimeout) {
        return {
          ok: false,
          error: new PlantStoreError({ kind: "timeout", message: `no answer from ${baseUrl} within ${timeoutMs} ms` }),
          retryAfterMs: undefined,
        };
      }
      return { ok: false, error: networkError(baseUrl, error), retryAfterMs: undefined };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forwardAbort);
    }
  }

  async function createPlant(newPlant: NewPlantInput, callOptions: CallOptions = {}): Promise<CreatePlantResult> {
    const { signal } = callOptions;
    const jsonText = serializeNewPlant(newPlant);
    // Once a request may have reached the server, a later "replayed" may be our own create.
    let mayHaveReachedServer = false;
    for (let attemptNumber = 1; ; attemptNumber++) {
      if (signal?.aborted) {
        throw new PlantStoreError({
          kind: "aborted",
          message: "the create was cancelled",
          attempts: attemptNumber - 1,
          cause: signal.reason,
        });
      }
      const result = await attempt(jsonText, signal).catch((error: unknown) => {
        throw error instanceof PlantStoreError ? error.withAttempts(attemptNumber) : error;
      });
      if (result.ok) {
        return {
          plant: result.plant,
          outcome: outcomeOf(result.outcomeHeader, mayHaveReachedServer),
          attempts: attemptNumber,
        };
      }
      const { error } = result;
      if (!error.isTransient() || attemptNumber > retry.retries) throw error.withAttempts(attemptNumber);
      // A 429 or a 503 means the server refused the request; anything else may have been stored.
      if (error.status !== 429 && error.status !== 503) mayHaveReachedServer = true;
      try {
        await sleep(retryDelayMs(attemptNumber - 1, result.retryAfterMs, retry), signal);
      } catch (reason) {
        throw new PlantStoreError({
          kind: "aborted",
          message: "the create was cancelled",
          attempts: attemptNumber,
          cause: reason,
        });
      }
    }
  }

  return { createPlant };
}

type AttemptResult =
  | { ok: true; plant: Plant; outcomeHeader: string | null }
  | { ok: false; error: PlantStoreError; retryAfterMs: number | undefined };

function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl must be an http or https URL, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError("baseUrl must not contain credentials; pass the token as `token`");
  }
  return url.href.replace(/\/+$/, "");
}

/** Exact JSON for the body; a number id must be a safe integer (a larger one has already lost digits). */
function serializeNewPlant(newPlant: NewPlantInput): string {
  const id: unknown = (newPlant as { id?: unknown }).id;
  if (typeof id === "number" && !Number.isSafeInteger(id)) {
    throw new PlantStoreError({
      kind: "invalid-request",
      message: Number.isInteger(id)
        ? "id: must be a safe integer when given as a number; pass ids beyond 2^53 as bigint"
        : "id: must be an integer",
    });
  }
  return stringifyExactJson(newPlant);
}

function outcomeOf(header: string | null, mayHaveReachedServer: boolean): CreateOutcome {
  if (header === "created") return "created";
  if (header === "replayed" && !mayHaveReachedServer) return "replayed";
  return "unknown";
}

function errorFromStatus(status: number, body: unknown): PlantStoreError {
  const errorBody = ErrorBody.safeParse(body);
  if (errorBody.success) {
    const { error: code, message } = errorBody.data;
    return new PlantStoreError({ kind: "http", status, code, detail: message, message: `HTTP ${status}: ${message}` });
  }
  return new PlantStoreError({ kind: "http", status, message: `HTTP ${status} without a Plant Store error body` });
}

function networkError(baseUrl: string, error: unknown): PlantStoreError {
  // fetch (undici) reports "fetch failed" with the real reason (ECONNREFUSED, ECONNRESET…) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new PlantStoreError({ kind: "network", message: `could not reach ${baseUrl}: ${reason}`, cause: error });
}
