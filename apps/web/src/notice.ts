/**
 * What the page says about the last action: a refusal (role="alert", and beside the field it
 * belongs to, when it belongs to one) or news of a success (role="status"). One at a time: each
 * action clears the last one first, so nothing outlives its moment.
 */
export interface Notice {
  alert: string;
  status: string;
  /** The id of the input the refusal is about: marked aria-invalid, the reason shown beside it. */
  field: string | undefined;
}

export const QUIET: Notice = { alert: "", status: "", field: undefined };

export interface Say {
  /** Forgets the last outcome: every action starts with this. */
  clear(): void;
  /** A refusal, in the server's words when it came from the server; `field` names the input it is about. */
  refuse(error: unknown, field?: string): void;
  tell(status: string): void;
}
