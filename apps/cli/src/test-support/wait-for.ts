/**
 * Waits until `condition` holds, checking every 20 ms. The deadline is generous: it only turns a
 * condition that never comes into a failure instead of a hang, and is never what a test measures.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
