import { describe, expect, it, vi } from "vitest";
import { fakeStream, useFakeTimers } from "../test-support/fake-stream.js";
import { startExportProgress } from "./export-progress.js";

useFakeTimers();

describe("startExportProgress", () => {
  it("redraws a count in place on a terminal and clears it when stopped", () => {
    const { writes, stream } = fakeStream(true);
    const progress = { plants: 0 };
    const stop = startExportProgress({ stream, progress, intervalMs: 2_000 });
    progress.plants = 150;
    vi.advanceTimersByTime(100);
    expect(writes).toEqual(["\r150 plants exported · 1500/s\x1b[K"]);
    stop();
    expect(writes.at(-1)).toBe("\r\x1b[K");
    vi.advanceTimersByTime(1_000);
    expect(writes).toHaveLength(2);
  });

  it("writes a plain line every interval when not on a terminal", () => {
    const { writes, stream } = fakeStream(false);
    const progress = { plants: 0 };
    const stop = startExportProgress({ stream, progress, intervalMs: 2_000 });
    vi.advanceTimersByTime(1_999);
    expect(writes).toEqual([]);
    progress.plants = 3_000;
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(["progress: 3000 plants exported, 1500 plants/s\n"]);
    stop();
    vi.advanceTimersByTime(10_000);
    expect(writes).toHaveLength(1);
  });
});
