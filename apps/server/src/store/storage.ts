import type { NewPlant, Scope, StoredPlant } from "@plantstore/contract";
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

/** What a delete did, decided by the database like a create. */
export type DeleteDecision =
  /** The plant was deleted; this is what it was. */
  | { kind: "deleted"; plant: StoredPlant }
  /** No plant had this id (never created, or already deleted). */
  | { kind: "not-found" };

/** A page request: at most `limit` plants with an id above `after` (and this `tag`), in id order. */
export interface PageQuery {
  limit: number;
  after?: bigint;
  tag?: string;
}

export interface PlantRepository {
  /** Creates the plant unless its id exists. Resolves only once the outcome is durable. */
  create(plant: NewPlant): Promise<CreateDecision>;
  /** Deletes the plant with this id. Resolves only once the outcome is durable. */
  delete(id: bigint): Promise<DeleteDecision>;
  /** Reads one committed plant. */
  find(id: bigint): Promise<StoredPlant | undefined>;
  /** Committed plants in ascending (signed) id order: keyset pagination, as fast deep as at the start. */
  list(page: PageQuery): Promise<StoredPlant[]>;
  count(): Promise<number>;
}

export interface TokenInfo {
  id: number;
  label: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
}

export interface ActiveToken {
  id: number;
  hash: Buffer;
  scopes: Scope[];
}

/** API tokens, kept only as SHA-256 hashes, each with the scopes it grants. */
export interface TokenRepository {
  /** Every token that is not revoked: its id, hash and scopes. */
  activeTokens(): Promise<ActiveToken[]>;
  add(hash: Buffer, label: string, scopes: readonly Scope[]): Promise<TokenInfo>;
  /** Adds a token with every scope only when no active token exists (first start); atomic across processes. */
  addIfNoneActive(hash: Buffer, label: string): Promise<boolean>;
  /** Marks the token revoked; false when there is no such active token. */
  revoke(id: number): Promise<boolean>;
  list(): Promise<TokenInfo[]>;
}

/** How storage is opened: the PostgreSQL pool's settings (SQLite ignores them) and what to tell whom. */
export interface StorageOptions {
  poolMax: number;
  connectionTimeoutMs: number;
  idleTimeoutMs: number;
  logger: Logger;
  /** Told of every group-commit batch: how many writes, and how long the commit took. */
  observeBatch?: BatchObserver;
}

export type BatchObserver = (size: number, seconds: number) => void;

export interface Storage {
  readonly kind: "sqlite" | "postgres";
  /** Where the data lives, for logs (never contains a password). */
  readonly location: string;
  readonly plants: PlantRepository;
  readonly tokens: TokenRepository;
  /** True when storage answers a trivial query now. */
  ping(): Promise<boolean>;
  /** Finishes pending writes, then closes. */
  close(): Promise<void>;
}

/** Storage cannot be reached right now (database down, connection lost): answered as 503. */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
