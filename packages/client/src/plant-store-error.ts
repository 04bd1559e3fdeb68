import { errorCatalogue, type ErrorCodeName } from "@plantstore/contract";
import { isRetryableStatus } from "./retry-policy.js";

/**
 * Why a call failed:
 * - `http`: the server answered an error status (see `status`, `code`, `detail`);
 * - `network`: no answer (connection refused or reset, DNS failure), after every retry;
 * - `timeout`: every attempt outlasted `timeoutMs`;
 * - `aborted`: the caller's `AbortSignal` fired;
 * - `invalid-request`: refused before sending (an id the client cannot send exactly, a bad page
 *   size or tag);
 * - `unexpected-response`: a success whose body or headers do not match the contract.
 */
export type PlantStoreErrorKind =
  "http" | "network" | "timeout" | "aborted" | "invalid-request" | "unexpected-response";

export interface PlantStoreErrorInit {
  kind: PlantStoreErrorKind;
  message: string;
  status?: number;
  code?: number;
  detail?: string;
  retryAfterMs?: number | undefined;
  attempts?: number;
  cause?: unknown;
  mayHaveActed?: boolean;
}

const codeNames: ReadonlyMap<number, ErrorCodeName> = new Map(errorCatalogue.map(({ code, name }) => [code, name]));

/**
 * The one error a Plant Store client call throws. Its message never contains the bearer token
 * (nothing from the request headers is ever put into it).
 */
export class PlantStoreError extends Error {
  override readonly name = "PlantStoreError";
  readonly kind: PlantStoreErrorKind;
  /** The HTTP status, for `kind: "http"`. */
  readonly status: number | undefined;
  /** The Error body's `error` field: a code from `ErrorCode` (its first three digits are the status). */
  readonly code: number | undefined;
  /** The catalogue name of `code`, e.g. `"ID_CONFLICT"`; undefined for a code this client does not know. */
  readonly codeName: ErrorCodeName | undefined;
  /** The Error body's `message` field as the server sent it. */
  readonly detail: string | undefined;
  /** The wait the server asked for before trying again (its `Retry-After`, in ms), e.g. on a 429 or 503. */
  readonly retryAfterMs: number | undefined;
  /** How many requests were made before giving up (0 when refused before sending). */
  readonly attempts: number;
  /**
   * True when the call failed, yet an attempt of this write may have been carried out: its answer
   * was lost (a network error, a timeout, 408, 502, 504), or the server said 503 OUTCOME_UNKNOWN
   * (its storage failed while committing). The plant may or may not have been created or deleted:
   * read it to know, or repeat the call (every call is safe to repeat). Always false for reads.
   */
  readonly mayHaveActed: boolean;

  constructor(init: PlantStoreErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.codeName = init.code === undefined ? undefined : codeNames.get(init.code);
    this.detail = init.detail;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts ?? 0;
    this.mayHaveActed = init.mayHaveActed ?? false;
  }

  /** The id exists with a different name or tag (409); the stored plant is unchanged. */
  isConflict(): boolean {
    return this.status === 409;
  }

  /** No plant has the id (404 `PLANT_NOT_FOUND`), on a read or a delete. */
  isNotFound(): boolean {
    return this.codeName === "PLANT_NOT_FOUND";
  }

  /**
   * `ifMatch` did not hold (412 `PRECONDITION_FAILED`): someone else changed or deleted the plant
   * since it was read; nothing was changed. Read it again (`readPlant`) and decide again.
   */
  isPreconditionFailed(): boolean {
    return this.codeName === "PRECONDITION_FAILED";
  }

  /** The bearer token is missing, malformed, unknown or revoked (401). */
  isAuthError(): boolean {
    return this.status === 401;
  }

  /** The input was refused: not a valid NewPlant, id or query, too large, or not sendable as JSON. */
  isInvalidInput(): boolean {
    return this.kind === "invalid-request" || this.status === 400 || this.status === 413 || this.status === 415;
  }

  /** The failure may go away on its own (network, timeout, 408/429/502/503/504): retrying later is sensible. */
  isTransient(): boolean {
    return (
      this.kind === "network" ||
      this.kind === "timeout" ||
      (this.status !== undefined && isRetryableStatus(this.status))
    );
  }

  /**
   * Copy with the final attempt count, and whether an attempt may have acted (both are known only
   * once the retry loop ends); the message then says that the outcome is unknown.
   */
  withAttempts(attempts: number, mayHaveActed = this.mayHaveActed): PlantStoreError {
    const unknownOutcome = mayHaveActed && !this.mayHaveActed;
    return new PlantStoreError({
      kind: this.kind,
      message: unknownOutcome
        ? `${this.message} (an attempt may have been carried out: outcome unknown)`
        : this.message,
      status: this.status,
      code: this.code,
      detail: this.detail,
      retryAfterMs: this.retryAfterMs,
      attempts,
      cause: this.cause,
      mayHaveActed,
    });
  }
}

export function isPlantStoreError(value: unknown): value is PlantStoreError {
  return value instanceof PlantStoreError;
}
