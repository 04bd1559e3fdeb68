import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Request latency buckets, in seconds: 0.5 ms … 10 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Writes per group-commit batch. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** What became of a write: the outcomes of the plant use cases that change or confirm a plant. */
export type PlantOutcome =
  | "created"
  | "replayed"
  | "conflict"
  | "updated"
  | "unchanged"
  | "deleted"
  /** An edit or delete refused because its If-Match did not hold (412). */
  | "precondition_failed";

/** What became of one webhook delivery attempt. */
/** Why a change stream ended: the client left, its token was revoked, it read too slowly, or shutdown. */
export type StreamEnd = "client" | "revoked" | "slow" | "shutdown";

export type WebhookAttemptOutcome = "delivered" | "retry" | "failed" | "endpoint_gone";

/**
 * The server's Prometheus metrics, in a registry of its own (several servers may share a process,
 * as in the tests). Labels are bounded: an operation id (from the contract, or `unmatched` for
 * 404/405, `unparsed` for what Node's HTTP parser refused) and a status code; never a path, an id
 * or a token. Names follow Prometheus conventions (`_total`, `_seconds`).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "plantstore_http_requests_total",
    help: "HTTP requests answered, by operation and status.",
    labelNames: ["operation", "status"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "plantstore_http_request_duration_seconds",
    help: "Time from the request's arrival to the end of its answer, by operation and status.",
    labelNames: ["operation", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly outcomes = new Counter({
    name: "plantstore_plant_outcomes_total",
    help: "Plant writes by outcome: created, replayed (an identical create), conflict (409), updated, unchanged (an edit that changed nothing), deleted, precondition_failed (412).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  private readonly batchSize = new Histogram({
    name: "plantstore_group_commit_batch_size",
    help: "Writes committed together in one transaction (group commit).",
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
  });
  private readonly commitLatency = new Histogram({
    name: "plantstore_group_commit_duration_seconds",
    help: "Time to commit (and sync) one group-commit batch.",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: "plantstore_rate_limited_requests_total",
    help: "Requests refused with 429 because their token was over its rate limit.",
    registers: [this.registry],
  });
  private readonly droppedConnections = new Counter({
    name: "plantstore_connections_dropped_total",
    help: "Connections closed as they arrived because PLANTSTORE_MAX_CONNECTIONS were open.",
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: "plantstore_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (schedule exhausted), endpoint_gone (410: endpoint disabled).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  private readonly openStreams = new Gauge({
    name: "plantstore_change_streams",
    help: "Change streams (GET /plants/changes) open now on this instance.",
    registers: [this.registry],
  });
  private readonly streamEvents = new Counter({
    name: "plantstore_change_stream_events_total",
    help: "Change events sent on change streams (one per event per stream; resets and heartbeats not counted).",
    registers: [this.registry],
  });
  private readonly endedStreams = new Counter({
    name: "plantstore_change_streams_ended_total",
    help: "Change streams ended, by reason: client (it left), revoked (its token was revoked), slow (its unsent bytes passed PLANTSTORE_CHANGES_BUFFER_BYTES), shutdown.",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  constructor() {
    // Event-loop lag, heap, GC, CPU, file descriptors: the standard Node.js process metrics.
    collectDefaultMetrics({ register: this.registry });
  }

  /** Requests answered since start, whatever their operation and status (read without the registry's cost). */
  answered = 0;

  observeRequest(operation: string, status: number, ms: number): void {
    this.answered++;
    const labels = { operation, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, ms / 1000);
  }

  countOutcome(outcome: PlantOutcome): void {
    this.outcomes.inc({ outcome });
  }

  observeBatch(size: number, seconds: number): void {
    this.batchSize.observe(size);
    this.commitLatency.observe(seconds);
  }

  countRateLimited(): void {
    this.rateLimited.inc();
  }

  countDroppedConnection(): void {
    this.droppedConnections.inc();
  }

  countWebhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  streamOpened(): void {
    this.openStreams.inc();
  }

  streamEnded(reason: StreamEnd): void {
    this.openStreams.dec();
    this.endedStreams.inc({ reason });
  }

  countStreamEvents(events: number): void {
    this.streamEvents.inc(events);
  }

  /** The age of the oldest pending webhook delivery, read from storage at each scrape. */
  watchPendingWebhooks(oldestPendingAgeSeconds: () => Promise<number>): void {
    new Gauge({
      name: "plantstore_webhook_oldest_pending_seconds",
      help: "Seconds since the event of the oldest webhook delivery not yet delivered or failed happened (0: none pending).",
      registers: [this.registry],
      async collect() {
        this.set(await oldestPendingAgeSeconds());
      },
    });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
