import { isScope, SCOPES, type Scope } from "@plantstore/contract";

/**
 * Scopes are stored as OAuth writes them, space-separated. A name this server does not know (one a
 * newer server version granted) grants nothing here.
 */
export function scopesFromColumn(column: string): Scope[] {
  const names = column.split(" ");
  return SCOPES.filter((scope) => names.includes(scope) && isScope(scope));
}

export function scopesToColumn(scopes: readonly Scope[]): string {
  return scopes.join(" ");
}

/** What tokens created before scopes existed were: allowed everything. */
export const ALL_SCOPES_COLUMN = scopesToColumn(SCOPES);

/** The most token rows one read returns (the refresh's pages, the listing's): ~1 ms of reading. */
export const TOKEN_PAGE_ROWS = 1000;

/**
 * Where one page of changes (rows in `changed` order, read at or after `version`) leaves a reader:
 * at its last row when the page is full (more may follow), else at the newest version it has seen.
 */
export function tokenPageEnd(version: number, changed: readonly number[]): { version: number; more: boolean } {
  const more = changed.length === TOKEN_PAGE_ROWS;
  return { version: more ? changed[changed.length - 1]! : Math.max(version, ...changed), more };
}
