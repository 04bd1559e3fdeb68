import type { Deprecation } from "./deprecation.js";

/**
 * What a token may do (RFC 6750 §3.1 scopes): read plants, write (create, edit and delete) plants, read
 * the server's metrics. Each operation of the contract names the one scope it needs.
 */
export const SCOPES = ["plants:read", "plants:write", "metrics:read"] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** What the contract records about each operation beyond HTTP (ts-rest route metadata). */
export interface OperationMetadata {
  /** The scope a token needs for this operation. */
  scope: Scope;
  /** Set when the operation is going away (`deprecation({...})`): the documents and the server's answers say so. */
  deprecated?: Deprecation;
}
