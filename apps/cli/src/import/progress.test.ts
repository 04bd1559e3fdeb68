import { describe, expect, it, vi } from "vitest";
import { fakeStream, useFakeTimers } from "../test-support/fake-stream.js";
import { emptySummary } from "./import-summary.js";
import { startProgress } from "./progress.js";

useFakeTimers();

describe("startProgress", () => {
  it("redraws a bar in place on a terminal and clears it when stopped", () => {
    const { writes, stream } = fakeStream(true);
    const summary = emptySummary();
    const stop = startProgress({ stream, summary, expectedLines: 200, intervalMs: 2_000 });
    summary.created = 100;
    summary.invalid.push({ line: 3, reason: "x" });
    vi.advanceTimersByTime(100);
    expect(writes.at(-1)).toMatch(/^\r\[#{12}\.{12}\] 50% 101\/200 \d+\/s · 1 failed\x1b\[K$/);
    stop();
    expect(writes.at(-1)).toBe("\r\x1b[K");
    vi.advanceTimersByTime(1_000);
    expect(writes).toHaveLength(2);
  });

  it("never shows 100% before the end, and counts lines when the total is unknown", () => {
    const { writes, stream } = fakeStream(true);
    const summary = emptySummary();
    summary.created = 300;
    const stop = startProgress({ stream, summary, expectedLines: 200, intervalMs: 2_000 });
    vi.advanceTimersByTime(100);
    expect(writes.at(-1)).toContain("99% 300/200");
    stop();
    const unknown = fakeStream(true);
    const stopUnknown = startProgress({ stream: unknown.stream, summary, intervalMs: 2_000 });
    vi.advanceTimersByTime(100);
    expect(unknown.writes.at(-1)).toMatch(/^\r300 lines /);
    stopUnknown();
  });

  it("writes a plain line every interval when not on a terminal", () => {
    const { writes, stream } = fakeStream(false);
    const summary = emptySummary();
    const stop = startProgress({ stream, summary, expectedLines: 10, intervalMs: 2_000 });
    vi.advanceTimersByTime(1_999);
    expect(writes).toEqual([]);
    summary.created = 4;
    summary.alreadyPresent = 2;
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(["progress: 6/10 lines done (created 4, already present 2, failed 0), 3 lines/s\n"]);
    stop();
    expect(writes).toHaveLength(1);
  });
});
