import { setMaxListeners } from "node:events";

export interface InterruptTrap {
  /** Fires on the first Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
  /** Stops listening for the signals. */
  release(): void;
}

/**
 * The first Ctrl-C (or SIGTERM) aborts `signal` after writing `message`, so the command can stop
 * cleanly and say what it did; a second one quits at once with exit code 130.
 */
export function trapInterrupts(message: string, maxListeners = 10): InterruptTrap {
  const controller = new AbortController();
  // Each request in flight listens to this signal (its attempt and its backoff wait).
  setMaxListeners(maxListeners, controller.signal);
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`\nplantstore: interrupted; ${message} (press Ctrl-C again to quit at once)\n`);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
