/** A mistake in how the command was called or in its input as a whole: exit code 2, no stack trace. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
