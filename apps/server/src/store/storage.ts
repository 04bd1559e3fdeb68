import type { NewPlant, StoredPlant } from "@plantstore/contract";

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
  createdAt: string;
  revokedAt?: string;
}

/** API tokens, kept only as SHA-256 hashes. */
export interface TokenRepository {
  /** The hashes of every token that is not revoked. */
  activeHashes(): Promise<Buffer[]>;
  add(hash: Buffer, label: string): Promise<TokenInfo>;
  /** Adds the token only when no active token exists (first start); atomic across processes. */
  addIfNoneActive(hash: Buffer, label: string): Promise<boolean>;
  /** Marks the token revoked; false when there is no such active token. */
  revoke(id: number): Promise<boolean>;
  list(): Promise<TokenInfo[]>;
}

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
