import { hasLoneSurrogate } from "@plantstore/contract";

/**
 * PostgreSQL `text` cannot hold U+0000 (error 22021), and node-postgres silently turns a lone
 * UTF-16 surrogate into U+FFFD while encoding UTF-8, which would store a different name than the
 * one acknowledged. The contract's validation already refuses both with a 400; this guard makes
 * sure such text never reaches the database even if a caller skipped validation.
 */

export class UnstorableTextError extends Error {
  override readonly name = "UnstorableTextError";
}

export function assertStorableText(field: string, value: string | undefined): void {
  if (value === undefined) return;
  if (value.includes("\u0000"))
    throw new UnstorableTextError(`${field}: contains U+0000, which PostgreSQL cannot store`);
  if (hasLoneSurrogate(value)) throw new UnstorableTextError(`${field}: is not well-formed Unicode (lone surrogate)`);
}
