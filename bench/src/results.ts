import type { ScenarioName } from "./scenarios.js";
import type { TargetName } from "./targets.js";
import type { MachineInfo } from "./machine.js";

/** One wrk run, reduced to what the report needs. */
export interface RoundResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  statuses: Record<string, number>;
  socketErrors: number;
  timeouts: number;
  /** Server CPU time (user + system) per answered request, in microseconds. */
  cpuUsPerRequest: number | undefined;
  /** Server CPU time over wall time: near 1 means CPU-bound on its core; well below, it waited (fsync, or other work had the core). */
  cpuShare: number | undefined;
  /** CPU time the server's pinned core gave to anything else during the load (other servers, kernel workers), ms. */
  coreOthersMs?: number;
  /** Time the hypervisor took from the server's pinned core during the load (steal), ms. */
  coreStealMs?: number;
}

/** One target under one scenario, over every round. */
export interface CellResult {
  target: TargetName;
  scenario: ScenarioName;
  rounds: RoundResult[];
  medianReqPerSec: number;
  medianP50Ms: number;
  medianP99Ms: number;
  medianCpuUsPerRequest: number | undefined;
  medianCpuShare: number | undefined;
  /** Median over the rounds of the pinned core's time given to anything but this server, ms. */
  medianCoreOthersMs?: number | undefined;
}

export interface Ratio {
  scenario: ScenarioName;
  baseline: TargetName;
  /** Plant Store's median req/s over the baseline's. */
  ratio: number;
  /** Plant Store's median server CPU µs per request over the baseline's (below 1: Plant Store is cheaper). */
  cpuCostRatio: number | undefined;
}

export interface Goal {
  goal: string;
  required: string;
  actual: string;
  met: boolean;
}

export interface BenchSettings {
  smoke: boolean;
  rounds: number;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  wrkThreads: number;
  poolSize: number;
  /** Plants a large-store target holds before its load (10 million; fewer in a smoke run). */
  largeStorePlants: number;
  pinned: boolean;
}

/** The change streams' side of the subscribers target: how late a create's event reached a subscriber. */
export interface StreamResult {
  target: TargetName;
  subscribers: number;
  /** Creates timed from their 200 to their event at a subscriber, during the measured rounds. */
  samples: number;
  p50Ms: number;
  p99Ms: number;
  /** Streams the server ended during the run (each opened again): should be 0. */
  reopened: number;
  /** Bytes the subscribers received, over every stream. */
  bytes: number;
}

export interface BenchResults {
  date: string;
  machine: MachineInfo;
  settings: BenchSettings;
  targets: Array<{ name: TargetName; description: string; peakRssKiB: number | undefined }>;
  cells: CellResult[];
  ratios: Ratio[];
  goals: Goal[];
  streams: StreamResult[];
  /** Wrong statuses, socket errors, targets that failed: any entry fails the run. */
  failures: string[];
}
