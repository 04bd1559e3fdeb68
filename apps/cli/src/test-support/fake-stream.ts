import { afterEach, beforeEach, vi } from "vitest";

/** A stream that records what is written to it, as a terminal (`isTTY`) or as a pipe or file. */
export function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (text: string) => writes.push(text) > 0 } as never };
}

/** Fake timers (and Date) in every test of the file: progress displays are tested without waiting. */
export function useFakeTimers(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
