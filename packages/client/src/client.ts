import {
  COUNT_HEADER,
  ErrorBody,
  ListPlantsQuery,
  parseCountHeader,
  OUTCOME_HEADER as PLANT_OUTCOME_HEADER,
  PlantId,
  PlantIdPath,
  plantStoreContract,
  stringifyExactJson,
  type ListOrder,
  type ListPlantsQueryInput,
  type NewPlantInput,
  type Plant,
  type PlantUpdate,
  type StoredPlant,
} from "@plantstore/contract";
import { initClient } from "@ts-rest/core";
import { createContractFetcher } from "./contract-fetcher.js";
import { PlantStoreError } from "./plant-store-error.js";
import { fetchTransport, type Transport } from "./transport.js";
import { DEFAULT_RETRY_OPTIONS, parseRetryAfterMs, retryDelayMs, sleep, type RetryOptions } from "./retry-policy.js";
import { watchPlants, type PlantChange, type WatchPlantsOptions } from "./watch.js";

export interface PlantStoreClientOptions {
  /** The server's base address, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The bearer token. It is sent in the Authorization header and nowhere else. */
  token: string;
  /**
   * Send requests with this `fetch`. Default: under Node (the package's `node` export condition),
   * node:http with keep-alive connections (node-transport.ts); everywhere else the global `fetch`.
   */
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

export interface ConditionalCallOptions extends CallOptions {
  /**
   * Change the plant only if it is still as it was read: the `etag` of `readPlant` or of an earlier
   * `updatePlant` (or `*`: only if it exists). When someone changed or deleted it since, the call
   * throws a `PlantStoreError` whose `isPreconditionFailed()` is true, and nothing is changed.
   */
  ifMatch?: string;
}

/** A plant as read, with its ETag: pass `etag` as `ifMatch` to `updatePlant` or `deletePlant`. */
export interface VersionedPlant {
  plant: StoredPlant;
  /** The plant's strong ETag, as the server sent it (quotes included). */
  etag: string;
}

/**
 * What an edit that succeeded did:
 * - `updated`: the plant now has the new name and tag (the server answered 200);
 * - `unknown`: an earlier attempt of this call may have made the edit (its answer was lost, or was
 *   503 OUTCOME_UNKNOWN), and the retry's If-Match no longer held; the plant as read afterwards has
 *   the name and tag this call asked for.
 */
export type UpdateOutcome = "updated" | "unknown";

export interface UpdatePlantResult extends VersionedPlant {
  outcome: UpdateOutcome;
  /** Requests made, 1 when the first attempt succeeded. */
  attempts: number;
}

/**
 * What the server did with a create that answered 200:
 * - `created`: this call stored the plant;
 * - `replayed`: the identical plant was already stored before this call;
 * - `unknown`: the server did not say (no `Plant-Store-Outcome` header), or an earlier attempt of
 *   this same call may have reached the server (its answer was lost, or was 503 OUTCOME_UNKNOWN),
 *   so its replay may be of this call's own create.
 */
export type CreateOutcome = "created" | "replayed" | "unknown";

export interface CreatePlantResult {
  /** The plant as stored (the response body: no id). */
  plant: Plant;
  outcome: CreateOutcome;
  /** Requests made, 1 when the first attempt succeeded. */
  attempts: number;
}

/** A plant id as a caller passes it: a `bigint`, or a `number` that is a safe integer. */
export type PlantIdInput = bigint | number;

export interface ListPlantsOptions {
  /** Plants the page holds at most: 1 to `LIST_LIMIT_MAX` (1000); the server's default is 100. */
  limit?: number;
  /** Only plants after this id in the page's order: the `next` cursor of the previous page. */
  after?: PlantIdInput;
  /** `asc` (ascending signed id, the default) or `desc`. */
  order?: ListOrder;
  /** Only plants with exactly this tag. */
  tag?: string;
  /** Only plants whose name starts with this text; ASCII letters match either case (A–Z = a–z). */
  name?: string;
  /** Also count the plants that match `tag` and `name` (bounded: see `PlantPage.count`). */
  count?: boolean;
}

/** How many plants match a listing's filters: `count` exactly, or more than `count` when `more`. */
export interface PlantCount {
  /** The exact number when `more` is false; otherwise the bound (`LIST_COUNT_MAX`, 1000). */
  count: number;
  /** True when more than `count` plants match (the server counts only up to its bound). */
  more: boolean;
}

export interface PlantPage {
  /** The page's plants, in the order asked for (ascending signed id unless `order: "desc"`). */
  plants: StoredPlant[];
  /**
   * The cursor of the following page (the `after` of the server's `Link: <…>; rel="next"`), or
   * undefined on the last page: pass it as `after`, with the same `order`, `tag` and `name`, to read on.
   */
  next: bigint | undefined;
  /** With `count: true`: how many plants match the filters (all pages); otherwise undefined. */
  count?: PlantCount;
}

export interface PlantsOptions extends CallOptions {
  /** Only plants with exactly this tag. */
  tag?: string;
  /** Only plants whose name starts with this text; ASCII letters match either case. */
  name?: string;
  /** `asc` (ascending signed id, the default) or `desc`. */
  order?: ListOrder;
  /** Plants fetched per request (1 to 1000; default: the server's, 100). */
  pageSize?: number;
  /** Start after this id (e.g. the last id a previous run saw). */
  after?: PlantIdInput;
}

/**
 * What a delete that succeeded did:
 * - `deleted`: an attempt of this call deleted the plant (204);
 * - `unknown`: the plant is gone, but an earlier attempt of this call may have deleted it (its
 *   answer was lost, or was 503 OUTCOME_UNKNOWN), and the retry found no plant (404): this call or
 *   someone else deleted it.
 */
export type DeleteOutcome = "deleted" | "unknown";

export interface DeletePlantResult {
  outcome: DeleteOutcome;
  /** Requests made, 1 when the first attempt succeeded. */
  attempts: number;
}

export interface PlantStoreClient {
  /** Creates a plant, retrying transient failures; throws a `PlantStoreError` on failure. */
  createPlant(newPlant: NewPlantInput, options?: CallOptions): Promise<CreatePlantResult>;
  /** Reads one plant; an id no plant has throws a `PlantStoreError` whose `isNotFound()` is true. */
  getPlant(id: PlantIdInput, options?: CallOptions): Promise<StoredPlant>;
  /** Reads one page of plants in id order, and the cursor of the next page. */
  listPlants(query?: ListPlantsOptions, options?: CallOptions): Promise<PlantPage>;
  /** Every plant (with `tag`, `name`: every plant that matches) in id order, fetched page by page. */
  plants(options?: PlantsOptions): AsyncGenerator<StoredPlant, void, undefined>;
  /** Reads one plant with its ETag (for `ifMatch`); an id no plant has throws not-found. */
  readPlant(id: PlantIdInput, options?: CallOptions): Promise<VersionedPlant>;
  /**
   * Gives the plant a new name and tag (no `tag`: the tag is removed), retrying transient failures
   * (a PUT is safe to repeat). With `ifMatch`, only if the plant is still as read: otherwise a
   * `PlantStoreError` whose `isPreconditionFailed()` is true. An id no plant has throws not-found.
   */
  updatePlant(id: PlantIdInput, plant: PlantUpdate, options?: ConditionalCallOptions): Promise<UpdatePlantResult>;
  /**
   * Deletes a plant (with `ifMatch`: only if it is still as read). A 404 on the first attempt
   * throws not-found; a 404 (or, with `ifMatch`, a 412 for a plant that is gone) after an attempt
   * that may have reached the server is the answer to that attempt's own delete: `outcome: "unknown"`.
   */
  deletePlant(id: PlantIdInput, options?: ConditionalCallOptions): Promise<DeletePlantResult>;
  /**
   * Every committed change (after `after`, or from now on) as it happens, in commit order, from
   * GET /plants/changes: reconnects by itself from the last cursor (nothing missed, nothing
   * repeated), yields a `reset` when the cursor is older than what the server keeps (re-read the
   * list), and ends when `signal` aborts. Streams with `fetch` (the `fetch` option, or the global one).
   */
  watchPlants(options?: WatchPlantsOptions): AsyncGenerator<PlantChange, void, undefined>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const OUTCOME_HEADER = PLANT_OUTCOME_HEADER.toLowerCase();

/** The reason an attempt's own timer aborts it, told apart from the caller's abort. */
class AttemptTimeout extends Error {}

/** What every operation's ts-rest call resolves to (a union per status, narrowed by `status`). */
interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** The answer that ended the retry loop, and what the attempts before it may have done. */
interface Exchange<A extends Answer> {
  answer: A;
  attempts: number;
  /** An earlier attempt of this call may have reached the server and acted (its answer was lost). */
  earlierAttemptMayHaveActed: boolean;
}

/**
 * The client, sending with `defaultTransport` unless the caller passes a `fetch`. Each entry point
 * picks the default of its platform (index.ts: the global `fetch`; node.ts: node:http), so that
 * a browser bundle never meets a Node built-in.
 */
export function createClientWith(
  options: PlantStoreClientOptions,
  defaultTransport: () => Transport,
): PlantStoreClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) throw new TypeError("timeoutMs must be a positive number");
  const retry: RetryOptions =
    options.retry === false ? { ...DEFAULT_RETRY_OPTIONS, retries: 0 } : { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
  const tsRestClient = initClient(plantStoreContract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${options.token}` },
    api: createContractFetcher(options.fetch ? fetchTransport(options.fetch) : defaultTransport()),
    validateResponse: true,
  });

  /**
   * One request: resolves to the answer or to the failure; throws only when the caller cancelled.
   * `ends` says which statuses are answers to hand back; every other status is a failure.
   */
  async function attempt<A extends Answer>(
    what: string,
    send: (signal: AbortSignal) => Promise<A>,
    ends: (status: number) => boolean,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult<A>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const answer = await send(controller.signal);
      if (ends(answer.status)) return { ok: true, answer };
      const error = errorFromStatus(answer.status, answer.body, parseRetryAfterMs(answer.headers.get("retry-after")));
      return { ok: false, error, retryAfterMs: error.retryAfterMs };
    } catch (error) {
      if (error instanceof PlantStoreError) return { ok: false, error, retryAfterMs: undefined };
      if (signal?.aborted) {
        throw new PlantStoreError({ kind: "aborted", message: `the ${what} was cancelled`, cause: signal.reason });
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

  /**
   * The retry loop every operation shares: transient failures (network, timeout, 408, 429, 502,
   * 503, 504) are retried with backoff or after `Retry-After`; the first answer `ends` accepts is
   * returned; any other failure, or the last transient one, is thrown with the attempt count.
   */
  async function exchange<A extends Answer>(
    what: string,
    send: (signal: AbortSignal) => Promise<A>,
    ends: (status: number) => boolean,
    signal: AbortSignal | undefined,
  ): Promise<Exchange<A>> {
    // Reads change nothing: only a write's failure can hide a change.
    const mayChange = what !== "read" && what !== "list";
    let earlierAttemptMayHaveActed = false;
    for (let attemptNumber = 1; ; attemptNumber++) {
      if (signal?.aborted) {
        throw new PlantStoreError({
          kind: "aborted",
          message: `the ${what} was cancelled`,
          attempts: attemptNumber - 1,
          cause: signal.reason,
          mayHaveActed: mayChange && earlierAttemptMayHaveActed,
        });
      }
      const result = await attempt(what, send, ends, signal).catch((error: unknown) => {
        // Cancelled while the request was out: it may have reached the server.
        throw error instanceof PlantStoreError ? error.withAttempts(attemptNumber, mayChange) : error;
      });
      if (result.ok) return { answer: result.answer, attempts: attemptNumber, earlierAttemptMayHaveActed };
      const { error } = result;
      if (error.isTransient() && mayHaveActed(error)) earlierAttemptMayHaveActed = true;
      if (!error.isTransient() || attemptNumber > retry.retries) {
        // The call fails, yet an attempt may have done what was asked: the error says so.
        throw error.withAttempts(attemptNumber, mayChange && earlierAttemptMayHaveActed);
      }
      try {
        await sleep(retryDelayMs(attemptNumber - 1, result.retryAfterMs, retry), signal);
      } catch (reason) {
        throw new PlantStoreError({
          kind: "aborted",
          message: `the ${what} was cancelled`,
          attempts: attemptNumber,
          cause: reason,
          mayHaveActed: mayChange && earlierAttemptMayHaveActed,
        });
      }
    }
  }

  async function createPlant(newPlant: NewPlantInput, callOptions: CallOptions = {}): Promise<CreatePlantResult> {
    const jsonText = serializeNewPlant(newPlant);
    const { answer, attempts, earlierAttemptMayHaveActed } = await exchange(
      "create",
      (signal) =>
        tsRestClient.createPlant({
          // Already exact JSON text (see contract-fetcher.ts); ts-rest's body type is the object form.
          body: jsonText as unknown as NewPlantInput,
          fetchOptions: { signal },
        }),
      (status) => status === 200,
      callOptions.signal,
    );
    if (answer.status !== 200) throw unreachable(answer.status);
    return {
      plant: answer.body,
      // Once a request may have reached the server, a later "replayed" may be our own create.
      outcome: outcomeOf(answer.headers.get(OUTCOME_HEADER), earlierAttemptMayHaveActed),
      attempts,
    };
  }

  async function getPlant(id: PlantIdInput, callOptions: CallOptions = {}): Promise<StoredPlant> {
    const params = { id: idText(id, "id") };
    const { answer } = await exchange(
      "read",
      (signal) => tsRestClient.getPlant({ params, fetchOptions: { signal } }),
      (status) => status === 200,
      callOptions.signal,
    );
    if (answer.status !== 200) throw unreachable(answer.status);
    return answer.body;
  }

  async function listPlants(query: ListPlantsOptions = {}, callOptions: CallOptions = {}): Promise<PlantPage> {
    const wireQuery = listQuery(query);
    const { answer, attempts } = await exchange(
      "list",
      (signal) => tsRestClient.listPlants({ query: wireQuery, fetchOptions: { signal } }),
      (status) => status === 200,
      callOptions.signal,
    );
    if (answer.status !== 200) throw unreachable(answer.status);
    try {
      const next = nextCursorOf(answer.headers.get("link"));
      if (query.count !== true) return { plants: answer.body, next };
      return { plants: answer.body, next, count: countOf(answer.headers.get(COUNT_HEADER)) };
    } catch (error) {
      throw error instanceof PlantStoreError ? error.withAttempts(attempts) : error;
    }
  }

  async function* plants(iteratorOptions: PlantsOptions = {}): AsyncGenerator<StoredPlant, void, undefined> {
    const { tag, name, order, pageSize, signal } = iteratorOptions;
    const descending = order === "desc";
    let after = iteratorOptions.after === undefined ? undefined : BigInt(idText(iteratorOptions.after, "after"));
    const beyond = (id: bigint, than: bigint) => (descending ? id < than : id > than);
    for (;;) {
      const requested = after;
      const page = await listPlants({ limit: pageSize, after, order, tag, name }, { signal });
      for (const plant of page.plants) {
        // Keyset pages only move forward; a server that went back would make this loop forever.
        if (after !== undefined && (descending ? plant.id >= after : plant.id <= after)) {
          throw new PlantStoreError({
            kind: "unexpected-response",
            message: `the server listed plant ${plant.id} after plant ${after}: pages must be in ${descending ? "descending" : "ascending"} id order`,
            status: 200,
          });
        }
        after = plant.id;
        yield plant;
      }
      if (page.next === undefined) return;
      // The next page starts after the page's last plant, or, when the server read further than the
      // plants it found (a name prefix's page may end early, even empty), after the last plant it
      // read: never before the last plant, and always beyond where this page started.
      if (
        (after !== undefined && beyond(after, page.next)) ||
        (requested !== undefined && !beyond(page.next, requested))
      ) {
        throw new PlantStoreError({
          kind: "unexpected-response",
          message: `the server's next page starts after ${page.next}, before the page's last plant (${after ?? "none"}) or not beyond where the page started (${requested ?? "none"})`,
          status: 200,
        });
      }
      after = page.next;
    }
  }

  async function readPlant(id: PlantIdInput, callOptions: CallOptions = {}): Promise<VersionedPlant> {
    const params = { id: idText(id, "id") };
    const { answer, attempts } = await exchange(
      "read",
      (signal) => tsRestClient.getPlant({ params, headers: {}, fetchOptions: { signal } }),
      (status) => status === 200,
      callOptions.signal,
    );
    if (answer.status !== 200) throw unreachable(answer.status);
    return { plant: answer.body, etag: etagOf(answer.headers, attempts) };
  }

  async function updatePlant(
    id: PlantIdInput,
    plant: PlantUpdate,
    callOptions: ConditionalCallOptions = {},
  ): Promise<UpdatePlantResult> {
    const params = { id: idText(id, "id") };
    const headers = callOptions.ifMatch === undefined ? {} : { "if-match": callOptions.ifMatch };
    const jsonText = stringifyExactJson(plant);
    const { answer, attempts, earlierAttemptMayHaveActed } = await exchange(
      "update",
      (signal) =>
        tsRestClient.updatePlant({
          params,
          headers,
          // Already exact JSON text (see contract-fetcher.ts); ts-rest's body type is the object form.
          body: jsonText as unknown as PlantUpdate,
          fetchOptions: { signal },
        }),
      (status) => status === 200 || status === 412,
      callOptions.signal,
    );
    if (answer.status === 200) {
      return { plant: answer.body, etag: etagOf(answer.headers, attempts), outcome: "updated", attempts };
    }
    const error = errorFromStatus(answer.status, answer.body, undefined).withAttempts(attempts);
    // An earlier attempt may have made this very edit, so that the plant's ETag moved on: the plant
    // as it is now tells. Anything else is someone else's change.
    if (earlierAttemptMayHaveActed) {
      const current = await readPlant(id, callOptions).catch(() => undefined);
      if (current !== undefined && current.plant.name === plant.name && current.plant.tag === plant.tag) {
        return { ...current, outcome: "unknown", attempts };
      }
      throw error.withAttempts(attempts, true);
    }
    throw error;
  }

  async function deletePlant(id: PlantIdInput, callOptions: ConditionalCallOptions = {}): Promise<DeletePlantResult> {
    const params = { id: idText(id, "id") };
    const headers = callOptions.ifMatch === undefined ? {} : { "if-match": callOptions.ifMatch };
    const { answer, attempts, earlierAttemptMayHaveActed } = await exchange(
      "delete",
      (signal) => tsRestClient.deletePlant({ params, headers, fetchOptions: { signal } }),
      (status) => status === 204 || status === 404 || status === 412,
      callOptions.signal,
    );
    if (answer.status === 204) return { outcome: "deleted", attempts };
    const error = errorFromStatus(answer.status, answer.body, undefined).withAttempts(attempts);
    if (earlierAttemptMayHaveActed) {
      // The plant is gone; an earlier attempt whose answer was lost may have been what deleted it.
      if (error.isNotFound()) return { outcome: "unknown", attempts };
      // With If-Match, a plant that is gone is a 412 too: read it to tell.
      if (error.isPreconditionFailed()) {
        const gone = await readPlant(id, callOptions).then(
          () => false,
          (reason: unknown) => reason instanceof PlantStoreError && reason.isNotFound(),
        );
        if (gone) return { outcome: "unknown", attempts };
        throw error.withAttempts(attempts, true);
      }
    }
    throw error;
  }

  // The stream needs the body as it arrives: it uses `fetch` itself, never the buffered transport.
  const streamFetch: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const watch = (watchOptions?: WatchPlantsOptions) =>
    watchPlants({ baseUrl, token: options.token, fetch: streamFetch }, watchOptions);

  return { createPlant, getPlant, readPlant, listPlants, plants, updatePlant, deletePlant, watchPlants: watch };
}

type AttemptResult<A extends Answer> =
  { ok: true; answer: A } | { ok: false; error: PlantStoreError; retryAfterMs: number | undefined };

/**
 * Whether a failed attempt may have reached the server and been acted on. A 429 or a 503 is the
 * server (or a proxy) refusing the request unserved, except the server's 503 OUTCOME_UNKNOWN: its
 * storage failed while committing, so the write may have happened. Anything else transient (a
 * network error, a timeout, 408, 502, 504) may have been served with its answer lost on the way back.
 */
function mayHaveActed(error: PlantStoreError): boolean {
  if (error.codeName === "OUTCOME_UNKNOWN") return true;
  return error.status !== 429 && error.status !== 503;
}

/** A status the retry loop was told to end on, but the operation does not expect (a bug). */
function unreachable(status: number): Error {
  return new Error(`unexpected status ${status} after the retry loop`);
}

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

/**
 * The exact decimal text of an id for a path or a query: a bigint in int64, or a safe-integer
 * number. Anything else is refused before sending, like a create's id.
 */
function idText(id: unknown, field: string): string {
  const parsed = PlantId.safeParse(id);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((issue) => issue.message).join("; ");
    throw new PlantStoreError({ kind: "invalid-request", message: `${field}: ${reason}` });
  }
  return parsed.data.toString();
}

/** The query of GET /plants as text, checked with the contract's own schema before sending. */
function listQuery({ limit, after, order, tag, name, count }: ListPlantsOptions): ListPlantsQueryInput {
  const query = {
    ...(limit !== undefined && { limit: String(limit) }),
    ...(after !== undefined && { after: idText(after, "after") }),
    ...(order !== undefined && { order }),
    ...(tag !== undefined && { tag }),
    ...(name !== undefined && { name }),
    ...(count !== undefined && { count: count ? ("true" as const) : ("false" as const) }),
  };
  const checked = ListPlantsQuery.safeParse(query);
  if (!checked.success) {
    const reason = checked.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new PlantStoreError({ kind: "invalid-request", message: reason });
  }
  return query;
}

/**
 * The `after` cursor of the `rel="next"` link in a `Link` header (RFC 8288), or undefined when
 * there is none (the last page). A next link without a readable `after` breaks the contract.
 */
export function nextCursorOf(linkHeader: string | null): bigint | undefined {
  if (linkHeader === null) return undefined;
  // Each link is `<target>` and `; name=value` parameters, where a quoted value may hold `;` and `,`.
  // A target holds no `<` (RFC 3986), and saying so keeps the search linear: with `[^>]*`, every
  // `<` of a header of `<<<<…` was a new start that scanned to the end (16 KB: 0.6 s).
  for (const [, target = "", params = ""] of linkHeader.matchAll(
    /<([^<>]*)>((?:\s*;\s*(?:[^;,"]|"(?:[^"\\]|\\.)*")*)*)/g,
  )) {
    let relations: string[] = [];
    for (const [, name = "", quoted, bare] of params.matchAll(
      /;\s*([^\s=;,]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,]*)))?/g,
    )) {
      if (name.toLowerCase() === "rel") relations = (quoted ?? bare ?? "").trim().toLowerCase().split(/\s+/);
    }
    if (!relations.includes("next")) continue;
    const after = new URL(target, "http://base.invalid/").searchParams.get("after");
    const cursor = after === null ? undefined : PlantIdPath.safeParse(after);
    if (cursor?.success) return cursor.data;
    throw new PlantStoreError({
      kind: "unexpected-response",
      message: `the server's next-page link has no valid after cursor: ${linkHeader.slice(0, 200)}`,
      status: 200,
    });
  }
  return undefined;
}

/** The Plant-Store-Count header of a page asked with `count: true`, which must carry it. */
function countOf(header: string | null): PlantCount {
  const count = header === null ? undefined : parseCountHeader(header);
  if (count !== undefined) return count;
  throw new PlantStoreError({
    kind: "unexpected-response",
    message: `the server's ${COUNT_HEADER} header is ${header === null ? "missing" : `not a count: ${header.slice(0, 40)}`}`,
    status: 200,
  });
}

/** The ETag of a 200 that must carry one (GET and PUT of a plant). */
function etagOf(headers: Headers, attempts: number): string {
  const etag = headers.get("etag");
  if (etag !== null) return etag;
  throw new PlantStoreError({
    kind: "unexpected-response",
    message: "the server answered 200 without the ETag header the contract promises",
    status: 200,
    attempts,
  });
}

function outcomeOf(header: string | null, mayHaveReachedServer: boolean): CreateOutcome {
  if (header === "created") return "created";
  if (header === "replayed" && !mayHaveReachedServer) return "replayed";
  return "unknown";
}

function errorFromStatus(status: number, body: unknown, retryAfterMs: number | undefined): PlantStoreError {
  const errorBody = ErrorBody.safeParse(body);
  if (errorBody.success) {
    const { error: code, message } = errorBody.data;
    return new PlantStoreError({
      kind: "http",
      status,
      code,
      detail: message,
      retryAfterMs,
      message: `HTTP ${status}: ${message}`,
    });
  }
  return new PlantStoreError({
    kind: "http",
    status,
    retryAfterMs,
    message: `HTTP ${status} without a Plant Store error body`,
  });
}

function networkError(baseUrl: string, error: unknown): PlantStoreError {
  // fetch (undici) reports "fetch failed" with the real reason (ECONNREFUSED, ECONNRESET…) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new PlantStoreError({ kind: "network", message: `could not reach ${baseUrl}: ${reason}`, cause: error });
}
