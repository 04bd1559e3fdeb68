import { PlantStoreError } from "@plantstore/client";
import { stringifyExactJson } from "@plantstore/contract";

/** Why a call failed, in words for a one-line message. */
export function describeFailure(error: PlantStoreError): string {
  if (error.isConflict()) return `the id is taken by a plant with another name or tag (${error.detail})`;
  if (error.isNotFound()) return error.detail ?? "no such plant";
  if (error.isPreconditionFailed()) {
    return "someone else changed or deleted the plant since it was read; nothing was changed (run the command again)";
  }
  if (error.isAuthError()) return `the server refused the token (${error.detail})`;
  return error.message;
}

/** The error as `--json` writes it: the same fields for every command. */
export function failureJson(error: PlantStoreError) {
  const { kind, status, code, codeName, detail } = error;
  return { kind, status, code, codeName, message: detail ?? error.message };
}

/**
 * Reports a failed call on one plant: with `--json` a JSON line on standard output (the id exact),
 * and always one line on standard error. Returns the exit code, 1.
 */
export function reportPlantFailure(
  json: boolean | undefined,
  id: bigint,
  error: PlantStoreError,
  what: string,
): number {
  if (json) process.stdout.write(`${stringifyExactJson({ id, error: failureJson(error) })}\n`);
  const message = error.isNotFound()
    ? `no plant has id ${id}`
    : `could not ${what} plant ${id}: ${describeFailure(error)}`;
  process.stderr.write(`plantstore: ${message}\n`);
  return 1;
}

/** Rethrows anything that is not a PlantStoreError (a bug, reported by main as such). */
export function asPlantStoreError(error: unknown): PlantStoreError {
  if (error instanceof PlantStoreError) return error;
  throw error;
}
