import { createPlantStoreClient, PlantStoreError, type PlantStoreClient, type StoredPlant } from "@plantstore/client";
import { NewPlant, PlantUpdate, type NewPlantInput } from "@plantstore/contract";

/** Where the token lives while the tab is open: never localStorage, never a URL. */
const TOKEN_KEY = "plantstore-token";

export const savedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const saveToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

/** Plants per page of the table. */
export const PAGE_SIZE = 50;

/**
 * The typed client for the server that served this page. No retries: a person is waiting, so a
 * refusal (429 with its wait, 503) is shown at once, and they decide when to try again.
 */
export function clientFor(token: string): PlantStoreClient {
  return createPlantStoreClient({ baseUrl: window.location.origin, token, retry: false });
}

/**
 * A message that already says how long to wait ("retry in 3600 s", "try again in 2 minutes"): the
 * server's 429 does, its 503 ("retry later") does not.
 */
const STATES_A_WAIT = /\b(?:retry|try again)\b[^.;]*\d/i;

/**
 * What a person is told when a call fails: the server's own message, and the wait it asked for
 * (its Retry-After), said once: added only when the message does not already say it.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof PlantStoreError)) return error instanceof Error ? error.message : String(error);
  const message = error.detail ?? error.message;
  if (error.retryAfterMs === undefined || STATES_A_WAIT.test(message)) return message;
  const seconds = Math.ceil(error.retryAfterMs / 1000);
  return `${message} (try again in ${seconds} second${seconds === 1 ? "" : "s"})`;
}

/** A refusal of the page's own checks, naming the field it belongs to (shown beside that field). */
export interface Refusal {
  field: string;
  reason: string;
}

export interface PlantForm {
  id: string;
  name: string;
  tag: string;
}

/**
 * The add form's fields as the contract's NewPlant, checked with the contract's own schema before
 * anything is sent. The id is read digit for digit as a bigint (never through a number).
 */
export function newPlantFrom(
  form: PlantForm,
): { ok: true; plant: NewPlantInput & { id: bigint } } | ({ ok: false } & Refusal) {
  const idText = form.id.trim();
  if (!/^-?\d+$/.test(idText)) return { ok: false, field: "id", reason: "Id: must be a whole number" };
  const candidate = { id: BigInt(idText), name: form.name, ...(form.tag === "" ? {} : { tag: form.tag }) };
  const checked = NewPlant.safeParse(candidate);
  if (!checked.success) return { ok: false, ...firstRefusal(checked.error) };
  return { ok: true, plant: candidate };
}

/** The first thing the contract's schema refused: its field, and "Field: why". */
function firstRefusal(error: { issues: { path: PropertyKey[]; message: string }[] }): Refusal {
  const issue = error.issues[0]!;
  const field = String(issue.path[0] ?? "name");
  return { field, reason: `${field.charAt(0).toUpperCase()}${field.slice(1)}: ${issue.message}` };
}

export interface EditForm {
  name: string;
  tag: string;
}

/**
 * The edit form's fields as the contract's PlantUpdate (the whole plant as it is to be: an empty
 * tag removes the tag), checked with the contract's own schema before anything is sent.
 */
export function plantUpdateFrom(form: EditForm): { ok: true; plant: PlantUpdate } | ({ ok: false } & Refusal) {
  const candidate = { name: form.name, ...(form.tag === "" ? {} : { tag: form.tag }) };
  const checked = PlantUpdate.safeParse(candidate);
  if (!checked.success) return { ok: false, ...firstRefusal(checked.error) };
  return { ok: true, plant: candidate };
}

export type { StoredPlant };
