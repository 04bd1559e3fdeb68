import type { Writable } from "node:stream";

/** The output could not be written (a full disk, a closed pipe): `cause` is the stream's error. */
export class OutputError extends Error {
  override readonly name = "OutputError";
}

/** Writes text to a stream and waits whenever it asks to (constant memory); write errors are thrown as OutputError. */
export interface OutputSink {
  write(text: string): Promise<void>;
  /** Waits until everything written so far has been handed on (or throws the stream's error). */
  flush(): Promise<void>;
  /** Stops listening to the stream's errors. */
  release(): void;
}

export function outputSink(stream: Writable): OutputSink {
  let failure: Error | undefined;
  const waiters = new Set<() => void>();
  const onError = (error: Error) => {
    failure ??= error;
    for (const wake of waiters) wake();
  };
  stream.on("error", onError);
  const waitFor = (event: "drain") =>
    new Promise<void>((resolve) => {
      const wake = () => {
        waiters.delete(wake);
        stream.off(event, wake);
        resolve();
      };
      waiters.add(wake);
      stream.once(event, wake);
    });
  const check = () => {
    if (failure !== undefined) throw new OutputError(failure.message, { cause: failure });
  };
  return {
    async write(text) {
      check();
      if (!stream.write(text)) await waitFor("drain");
      check();
    },
    async flush() {
      check();
      if (stream.writableNeedDrain) await waitFor("drain");
      check();
    },
    release: () => stream.off("error", onError),
  };
}
