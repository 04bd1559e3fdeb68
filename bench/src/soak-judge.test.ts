import { describe, expect, it } from "vitest";
import { judgeSoak, type SoakMinute } from "./soak-judge.js";

const minute = (
  n: number,
  reqPerSec: number,
  rssMiB: number,
  unexpected: Record<string, number> = {},
  cpuUsPerRequest = 150,
): SoakMinute => ({
  minute: n,
  reqPerSec,
  cpuUsPerRequest,
  rssMiB,
  eventLoopP99Ms: 10,
  p99Ms: 20,
  unexpected,
  socketErrors: 0,
});

describe("judgeSoak", () => {
  it("meets the targets when nothing is unexpected, RSS holds and throughput is flat from minute 2", () => {
    const verdicts = judgeSoak([minute(1, 3000, 90), minute(2, 5000, 100), minute(3, 5400, 105), minute(4, 4700, 109)]);
    expect(verdicts.map((verdict) => verdict.met)).toEqual([true, true, true, true]);
  });

  it("misses on one unexpected status, on RSS growing over 10 % from minute 2, and on a minute 15 % off", () => {
    const verdicts = judgeSoak([
      minute(1, 5000, 100),
      minute(2, 5000, 100, { "get:500": 1 }),
      minute(3, 5000, 105),
      minute(4, 4000, 111),
    ]);
    expect(verdicts).toEqual([
      { target: "unexpected statuses and socket errors", required: "0", measured: "1", met: false },
      expect.objectContaining({ target: "RSS at the end vs minute 2", met: false }),
      expect.objectContaining({
        target: "throughput, minutes 2 on, vs their median",
        measured: expect.stringMatching(/^±20\.0 %/),
        met: false,
      }),
      expect.objectContaining({ target: "server CPU per request, minutes 2 on, vs their median", met: true }),
    ]);
  });

  it("judges CPU per request on its own: a throughput dip misses only throughput, a CPU rise misses CPU", () => {
    const busyMachine = judgeSoak([
      minute(1, 5000, 100),
      minute(2, 5000, 100, {}, 150),
      minute(3, 3500, 100, {}, 152),
      minute(4, 5000, 100, {}, 149),
    ]);
    expect(busyMachine.map((verdict) => verdict.met)).toEqual([true, true, false, true]);
    const slowerServer = judgeSoak([
      minute(1, 5000, 100),
      minute(2, 5000, 100, {}, 150),
      minute(3, 4900, 100, {}, 150),
      minute(4, 4800, 100, {}, 190),
    ]);
    expect(slowerServer.at(-1)).toMatchObject({
      measured: expect.stringMatching(/^±26\.7 % \(median 150 µs\)/),
      met: false,
    });
  });

  it("leaves the CPU verdict out when the server's CPU time could not be read", () => {
    const verdicts = judgeSoak([
      minute(1, 5000, 100),
      { ...minute(2, 5000, 100), cpuUsPerRequest: undefined },
      minute(3, 5000, 100),
    ]);
    expect(verdicts.map((verdict) => verdict.target)).not.toContain(
      "server CPU per request, minutes 2 on, vs their median",
    );
  });

  it("judges only the statuses when the run is shorter than 3 minutes", () => {
    expect(judgeSoak([minute(1, 5000, 100)])).toHaveLength(1);
  });
});
