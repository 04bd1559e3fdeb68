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
