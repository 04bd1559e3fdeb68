/** One minute of a soak run, as measured. */
export interface SoakMinute {
  minute: number;
  reqPerSec: number;
  /**
   * The server's CPU time (every thread) per answered request, µs. It rises when the server does more
   * work per request; on a shared virtual machine it also stretches somewhat when neighbours are busy.
   */
  cpuUsPerRequest: number | undefined;
  /** The server's largest RSS sampled in that minute, MiB. */
  rssMiB: number;
  /** The event loop's delay p99 over that minute, ms (from the server's /metrics). */
  eventLoopP99Ms: number | undefined;
  p99Ms: number;
  /** Answers whose status was not the one their kind expects, by `kind:status`. */
  unexpected: Record<string, number>;
  socketErrors: number;
}

export interface SoakVerdict {
  target: string;
  required: string;
  measured: string;
  met: boolean;
}

export const FLAT_BAND = 0.15;
export const RSS_GROWTH_MAX = 0.1;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The soak's targets: no unexpected status and no socket error at all; RSS at the end within 10 % of
 * minute 2's; throughput flat: every minute from the second on within ±15 % of those minutes' median
 * (the first minute warms up: JIT, page cache, the heap finding its size); the server's CPU per request
 * the same way, a second view that other work on the machine moves less than throughput. The last
 * three need 3 minutes.
 */
export function judgeSoak(minutes: readonly SoakMinute[]): SoakVerdict[] {
  const unexpected = minutes.reduce(
    (sum, minute) => sum + Object.values(minute.unexpected).reduce((a, b) => a + b, 0) + minute.socketErrors,
    0,
  );
  const verdicts: SoakVerdict[] = [
    {
      target: "unexpected statuses and socket errors",
      required: "0",
      measured: String(unexpected),
      met: unexpected === 0,
    },
  ];
  if (minutes.length < 3) return verdicts;
  const second = minutes[1]!;
  const last = minutes.at(-1)!;
  const growth = last.rssMiB / second.rssMiB - 1;
  verdicts.push({
    target: "RSS at the end vs minute 2",
    required: `≤ +${RSS_GROWTH_MAX * 100} %`,
    measured: `${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)} % (${second.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB)`,
    met: growth <= RSS_GROWTH_MAX,
  });
  verdicts.push(
    flatness(
      "throughput, minutes 2 on, vs their median",
      minutes.slice(1).map((minute) => minute.reqPerSec),
      "req/s",
    ),
  );
  const cpu = minutes.slice(1).map((minute) => minute.cpuUsPerRequest);
  if (cpu.every((value) => value !== undefined))
    verdicts.push(flatness("server CPU per request, minutes 2 on, vs their median", cpu, "µs"));
  return verdicts;
}

/** Flat: every value within ±FLAT_BAND of the values' median. */
function flatness(target: string, values: readonly number[], unit: string): SoakVerdict {
  const middle = median(values);
  const worst = Math.max(...values.map((value) => Math.abs(value / middle - 1)));
  return {
    target,
    required: `within ±${FLAT_BAND * 100} %`,
    measured: `±${(worst * 100).toFixed(1)} % (median ${Math.round(middle).toLocaleString("en")} ${unit})`,
    met: worst <= FLAT_BAND,
  };
}

export function renderSoak(minutes: readonly SoakMinute[], verdicts: readonly SoakVerdict[], header: string): string {
  const rows = minutes.map(
    (m) =>
      `| ${m.minute} | ${Math.round(m.reqPerSec).toLocaleString("en")} | ${m.cpuUsPerRequest?.toFixed(0) ?? "?"} | ${m.p99Ms.toFixed(2)} | ${m.rssMiB.toFixed(1)} | ${m.eventLoopP99Ms?.toFixed(1) ?? "?"} | ${
        Object.entries(m.unexpected)
          .map(([key, count]) => `${count}× ${key}`)
          .join(", ") || "none"
      } |`,
  );
  return [
    "# Plant Store soak run",
    "",
    header,
    "",
    "| minute | req/s | server CPU µs/req | p99 ms | RSS MiB (max) | event-loop delay p99 ms | unexpected statuses |",
    "|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
    "",
    "| target | required | measured | |",
    "|---|---|---|---|",
    ...verdicts.map((v) => `| ${v.target} | ${v.required} | ${v.measured} | ${v.met ? "met" : "**missed**"} |`),
    "",
  ].join("\n");
}
