import type { NewPlant, Scope, StoredPlant, WebhookEventType } from "@plantstore/contract";
import type { Logger } from "../logger.js";

export type { StoredPlant };

/**
 * What a create did. Decided by the database in one atomic statement, never by an in-memory
 * check, so that it holds under concurrency and across processes.
 */
export type CreateDecision =
  | { kind: "created"; plant: StoredPlant }
  /** The id existed with the same name and tag: an idempotent replay. */
  | { kind: "replayed"; plant: StoredPlant }
  /** The id existed with a different name or tag; nothing was changed. */
  | { kind: "conflict"; existing: StoredPlant };

/**
 * A condition on the plant as it is when a change is made (what `If-Match` asks): that it exists at
 * all (`any`), or that its version (plantVersion) is one of these. Checked in the same atomic step as
 * the change.
 */
export type VersionCondition = "any" | readonly string[];

/** What a delete did, decided by the database like a create. */
export type DeleteDecision =
  /** The plant was deleted; this is what it was. */
  | { kind: "deleted"; plant: StoredPlant }
  /** No plant had this id (never created, or already deleted), and no condition was given. */
  | { kind: "not-found" }
  /** The condition did not hold (the plant changed, or does not exist); nothing was changed. */
  | { kind: "precondition-failed" };

/** What an edit did, decided in one atomic step with its condition (see decideUpdate). */
export type UpdateDecision =
  /** The plant now has the new name and tag; its plant.updated event is in the same commit. */
  | { kind: "updated"; plant: StoredPlant }
  /** The plant already had this name and tag: nothing was written, no event. */
  | { kind: "unchanged"; plant: StoredPlant }
  /** No plant has this id, and no condition was given. An edit never creates. */
  | { kind: "not-found" }
  /** The condition did not hold (the plant changed, or does not exist); nothing was changed. */
  | { kind: "precondition-failed" };

/** Which plants a list or count is about: with exactly this tag, and a name starting with this prefix. */
export interface PlantFilter {
  tag?: string;
  /** A name prefix; A–Z match a–z (see plant-queries.ts). */
  name?: string;
}

/** A page request: at most `limit` plants after `after` in the page's order (ascending id unless `desc`). */
export interface PageQuery extends PlantFilter {
  limit: number;
  after?: bigint;
  order?: "asc" | "desc";
}

/**
 * A page of a name prefix read in id order through a bounded window (see PlantRepository.scan): the
 * matching plants (up to the query's limit + 1), and, when the window was full, its last plant's id.
 */
export interface ScannedPage {
  plants: StoredPlant[];
  windowEnd?: bigint;
}

export interface PlantRepository {
  /** Creates the plant unless its id exists. Resolves only once the outcome is durable. */
  create(plant: NewPlant): Promise<CreateDecision>;
  /**
   * Gives the plant with `plant.id` this name and tag (no tag: none), when `ifMatch` holds (or is not
   * given). Resolves only once the outcome is durable.
   */
  update(plant: StoredPlant, ifMatch?: VersionCondition): Promise<UpdateDecision>;
  /** Deletes the plant with this id, when `ifMatch` holds (or is not given). Resolves only once the outcome is durable. */
  delete(id: bigint, ifMatch?: VersionCondition): Promise<DeleteDecision>;
  /** Reads one committed plant. */
  find(id: bigint): Promise<StoredPlant | undefined>;
  /**
   * Committed plants in (signed) id order, ascending or descending: keyset pagination, as fast deep
   * as at the start. With a name, through the name's range of keys, which it reads whole: for a
   * range countUpTo found small.
   */
  list(page: PageQuery): Promise<StoredPlant[]>;
  /**
   * The plants of a name prefix among at most `window` plants (of the tag, if any) after the cursor,
   * in the page's order: up to `limit` + 1 of them, and the window's last id when it was full.
   */
  scan(page: PageQuery & { name: string }, window: number): Promise<ScannedPage>;
  /** How many plants match the filter, counting no further than `upTo`. */
  countUpTo(filter: PlantFilter, upTo: number): Promise<number>;
  count(): Promise<number>;
}

export interface TokenInfo {
  id: number;
  label: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
}

/** A token as the refresh sees it: active (may be used, with these scopes) or not (revoked). */
export interface TokenState {
  hash: Buffer;
  scopes: Scope[];
  active: boolean;
}

/** What changed in the token table since a version (see TokenRepository.changesSince). */
export interface TokenChanges {
  /** The table's version these changes bring a reader to: pass it to the next changesSince. */
  version: number;
  /** True when `tokens` is every active token (a first read): it replaces what the reader holds. */
  complete: boolean;
  /** Every active token (complete), or the tokens added or changed since the version asked about. */
  tokens: TokenState[];
}

/** API tokens, kept only as SHA-256 hashes, each with the scopes it grants. */
export interface TokenRepository {
  /**
   * The tokens changed since `version` (every active token when it is undefined, or when the
   * table is older than it: a restored backup). Reads only the changed rows: every change to the
   * table takes the next version (a trigger, on both backends), and versions become visible in
   * order. When nothing changed this is one read of a one-row table, however many tokens exist.
   */
  changesSince(version?: number): Promise<TokenChanges>;
  add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo>;
  /**
   * Adds a token with every scope only on a store that has never held a token (stored, or
   * configured: markTokensHeld). Atomic across processes; false when the store has held one.
   */
  addFirstRunToken(hash: Buffer, label: string): Promise<boolean>;
  /** Records that this store is used with tokens (PLANTSTORE_TOKENS): it never gets a first-run token. */
  markTokensHeld(): Promise<void>;
  /** Marks the token revoked; false when there is no such active token. */
  revoke(id: number): Promise<boolean>;
  list(): Promise<TokenInfo[]>;
}

/** Where webhook events go: set with the admin command, or from PLANTSTORE_WEBHOOK_URLS (`config`). */
export interface WebhookEndpoint {
  id: number;
  url: string;
  events: WebhookEventType[];
  source: "admin" | "config";
  createdAt: string;
  /**
   * Set when the endpoint answered 410 Gone (it gets no more deliveries), or when its URL left
   * PLANTSTORE_WEBHOOK_URLS (no new events; its pending deliveries wait for the URL to come back).
   */
  disabledAt?: string;
  disabledReason?: string;
}

/** A delivery this instance may attempt now: it holds the lease until `leaseMs` from the claim. */
export interface DueDelivery {
  delivery: number;
  /** The event's id: the `webhook-id` header, the same on every attempt. */
  eventId: string;
  type: WebhookEventType;
  /** The exact bytes to sign and send. */
  body: string;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  endpoint: number;
  url: string;
  /** Secrets to sign with: the current one, and the previous one while a rotation's overlap lasts. */
  secrets: string[];
}

export interface Claim {
  /** Who holds the leases (one id per server process). */
  owner: string;
  limit: number;
  /** At most this many deliveries of one endpoint in flight (so one endpoint cannot take every slot). */
  perEndpoint: number;
  leaseMs: number;
  /** Attempts already in flight here, by endpoint: they count against `perEndpoint`. */
  busy: Array<[endpoint: number, inFlight: number]>;
  /** Deliveries this instance is still attempting or recording: never claimed twice. */
  holding: number[];
}

/** What became of an attempt. */
export type AttemptResult =
  | { kind: "delivered"; status: number }
  | { kind: "retry"; delayMs: number; status?: number; error?: string }
  | { kind: "failed"; status?: number; error?: string }
  /** 410 Gone: the endpoint is disabled and its other pending deliveries fail with it. */
  | { kind: "endpoint-gone"; status: number };

/** What syncConfigured changed in the store's configured endpoints (each named by id and URL). */
export interface ConfiguredChanges {
  /** The store held configured endpoints before (otherwise this is its first configuration). */
  wasConfigured: boolean;
  added: ConfiguredEndpoint[];
  /** Their URL is back in PLANTSTORE_WEBHOOK_URLS: their waiting deliveries go out. */
  resumed: ConfiguredEndpoint[];
  /** Their URL left PLANTSTORE_WEBHOOK_URLS: with how many deliveries are kept, pending and failed. */
  disabled: Array<ConfiguredEndpoint & { pending: number; failed: number }>;
  /** Their secret was not PLANTSTORE_WEBHOOK_SECRET: rotated to it. */
  rotated: ConfiguredEndpoint[];
}

export interface ConfiguredEndpoint {
  id: number;
  url: string;
}

export interface DeliveryInfo {
  delivery: number;
  eventId: string;
  type: WebhookEventType;
  endpoint: number;
  url: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus?: number;
  lastError?: string;
  /** When the next attempt is due (pending), or when it ended (delivered, failed). */
  at: string;
}

/** Webhook endpoints and deliveries (each carrying its event). Events are written by the plant writes themselves. */
export interface WebhookRepository {
  /**
   * Milliseconds until the earliest pending delivery is due (0 or less: due now), or undefined when
   * none is pending. Relative, so that no instance compares its clock with the database's.
   */
  msUntilNextDue(): Promise<number | undefined>;
  /** Leases deliveries that are due and not leased by someone else (at most one holder at a time). */
  claimDue(claim: Claim): Promise<DueDelivery[]>;
  /** Records an attempt's result, when `owner` still holds the delivery's lease. */
  settle(delivery: number, owner: string, result: AttemptResult): Promise<void>;
  /** Seconds since the oldest pending delivery's event happened, or 0 when none is pending. */
  oldestPendingAgeSeconds(): Promise<number>;
  /**
   * Deletes up to `limit` delivered deliveries of events older than `before` (epoch ms), oldest
   * first; returns how many (fewer than `limit`: nothing is left to prune). Pending and failed
   * deliveries keep their event.
   */
  prune(before: number, limit: number): Promise<number>;

  addEndpoint(url: string, events: readonly WebhookEventType[], secret: string): Promise<WebhookEndpoint>;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  /** Removes an endpoint and its deliveries; false when there is none with this id. */
  removeEndpoint(id: number): Promise<boolean>;
  /** Signs with `secret` from now on, and with the old secret too until `overlapUntil` (epoch ms). */
  rotateSecret(id: number, secret: string, overlapUntil: number): Promise<boolean>;
  /**
   * Makes the `config` endpoints follow PLANTSTORE_WEBHOOK_URLS and PLANTSTORE_WEBHOOK_SECRET: a
   * URL new to the store is added; one that left is disabled, never removed (its deliveries are
   * kept); one that came back is enabled again; a changed secret is rotated (the old one signs
   * too until `overlapUntil`, epoch ms). Deletes nothing. Returns what it changed.
   */
  syncConfigured(urls: readonly string[], secret: string, overlapUntil: number): Promise<ConfiguredChanges>;
  listDeliveries(options: { failedOnly: boolean; limit: number }): Promise<DeliveryInfo[]>;
  /** Sends a delivery again from its first attempt; false when there is no such delivery or it is pending. */
  redeliver(delivery: number): Promise<boolean>;
}

/** A committed change as the log keeps it: its position (the cursor), its type and its event's body. */
export interface ChangeEntry {
  position: bigint;
  type: WebhookEventType;
  /** The event's JSON (the same bytes as its webhook deliveries), its sequence being `position`. */
  body: string;
}

/** What the change log holds now. */
export interface ChangeBounds {
  /** The oldest position kept; undefined when none is (nothing committed yet, or all pruned). */
  first: bigint | undefined;
  /** The newest position ever given (0 before the first change). */
  last: bigint;
}

/**
 * The log of committed changes: one entry per change (created, updated, deleted), written in the
 * change's own transaction with a position that only grows in commit order, across instances. A
 * reader that has seen position n has seen every position below it (see docs/architecture.md).
 */
export interface ChangeLog {
  /** Up to `limit` changes with a position above `cursor`, in position order. */
  after(cursor: bigint, limit: number): Promise<ChangeEntry[]>;
  bounds(): Promise<ChangeBounds>;
  /**
   * Deletes up to `limit` of the oldest changes committed before `before` (epoch ms), oldest first;
   * returns how many (fewer than `limit`: nothing older is left).
   */
  prune(before: number, limit: number): Promise<number>;
}

/** How storage is opened: the PostgreSQL pool's settings (SQLite ignores them) and what to tell whom. */
export interface StorageOptions {
  poolMax: number;
  connectionTimeoutMs: number;
  idleTimeoutMs: number;
  logger: Logger;
  /** Told of every group-commit batch: how many writes, and how long the commit took. */
  observeBatch?: BatchObserver;
  /** Told when a commit wrote webhook events (deliveries to make), so that they go out without waiting for a poll. */
  onDeliveries?: () => void;
  /** Told when a commit wrote changes to the log, so that this instance's streams read them at once. */
  onChanges?: () => void;
}

export type BatchObserver = (size: number, seconds: number) => void;

export interface Storage {
  readonly kind: "sqlite" | "postgres";
  /** Where the data lives, for logs (never contains a password). */
  readonly location: string;
  readonly plants: PlantRepository;
  readonly tokens: TokenRepository;
  readonly webhooks: WebhookRepository;
  readonly changes: ChangeLog;
  /** True when storage answers a trivial query now. */
  ping(): Promise<boolean>;
  /** Finishes pending writes, then closes. */
  close(): Promise<void>;
}

/** The database storage uses, for people: "SQLite database /path/plantstore.db" or "PostgreSQL database postgres://user@host:5432/db" (never a password). */
export function describeDatabase(storage: Pick<Storage, "kind" | "location">): string {
  return `${storage.kind === "sqlite" ? "SQLite" : "PostgreSQL"} database ${storage.location}`;
}

/**
 * Storage cannot serve this right now (database down, connection lost), and nothing was changed:
 * answered as 503 STORAGE_UNAVAILABLE.
 */
export class StorageUnavailableError extends Error {
  override readonly name: string = "StorageUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Storage failed while a write was being committed (the connection lost during COMMIT, the writer
 * gone after taking the batch): the write may or may not have happened. Answered as 503
 * OUTCOME_UNKNOWN, so that a client never takes it for "not done". Still storage being unavailable
 * (a subclass): everything that gives way to an outage gives way to this too.
 */
export class OutcomeUnknownError extends StorageUnavailableError {
  override readonly name = "OutcomeUnknownError";
}
