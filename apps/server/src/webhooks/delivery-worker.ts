import { randomUUID } from "node:crypto";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { hostname } from "node:os";
import { WEBHOOK_HEADERS } from "@plantstore/contract";
import type { Logger } from "../logger.js";
import type { Metrics, WebhookAttemptOutcome } from "../metrics.js";
import type { AttemptResult, DueDelivery, WebhookRepository } from "../store/storage.js";
import type { RequestPriority } from "./request-priority.js";
import { retryAfterMs, retryDelayMs } from "./schedule.js";
import { signatureHeader } from "./signing.js";

export interface DeliverySettings {
  /** Seconds between attempts; one first attempt plus one per delay, then the delivery has failed. */
  retryDelaysSeconds: readonly number[];
  /** Time limit of one attempt, from connecting to the end of the answer (its body included). */
  timeoutMs: number;
  /** Delivered events are deleted once this old. */
  retentionMs: number;
}

/** Attempts in flight at once in this instance, and per endpoint (a slow endpoint holds at most its share). */
const MAX_IN_FLIGHT = 64;
const MAX_PER_ENDPOINT = 4;
/** How much of an answer's body is read (it is not used: the status decides); past it, the connection is dropped. */
const MAX_ANSWER_BODY_BYTES = 4 * 1024;
/** How often an idle worker looks for due deliveries (other instances' events, expired leases, retries). */
const POLL_MS = 1_000;
/**
 * A lease lasts the attempt's timeout plus this, the time its result may take to be recorded (a
 * commit on a loaded disk). Only a dead instance's leases ever run out; another then takes over.
 */
const LEASE_MARGIN_MS = 30_000;
/**
 * Pauses before recording an attempt's result again after storage failed to, the last repeated for
 * as long as it fails: while the instance runs, a result is recorded as soon as storage answers
 * again. (Giving up left the delivery to its lease, 30 s and more; on a shared PostgreSQL short of
 * connections, an outage longer than the retries made the "never answers" test wait for it.)
 */
const SETTLE_RETRIES_MS = [50, 200, 1_000, 5_000];
/**
 * Delivered events are pruned in bounded steps, so that a large backlog never holds the writer long:
 * a step of 1,000 is ~11 ms on SQLite's writer thread and ~14 ms on PostgreSQL at a million rows kept
 * (10,000 held SQLite's writer ~75 ms, every create waiting behind it).
 */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1_000;

/** Where a delivery went, for logs: never the query string or credentials of a URL (they may hold secrets). */
export function shownUrl(url: string): string {
  try {
    const { origin, pathname } = new URL(url);
    return `${origin}${pathname}`;
  } catch {
    return "(invalid url)";
  }
}

interface Answer {
  status?: number;
  retryAfter?: string | null;
  error?: string;
}

/**
 * Delivers webhook events, outside every request: claims due deliveries (leases, so that on
 * PostgreSQL each attempt is made by one instance at a time), signs and sends each, and records the
 * result: any 2xx delivers it; 410 Gone disables the endpoint; anything else (3xx included:
 * redirects are not followed, 4xx, 5xx, timeouts, refused connections) is retried on the schedule
 * until it is exhausted, then the delivery is kept as failed. Each attempt is one log line.
 * A slow or dead endpoint holds at most MAX_PER_ENDPOINT attempts, so it slows no other endpoint,
 * and no request ever waits for a delivery.
 */
export class DeliveryWorker {
  /** Who holds this instance's leases: unique per process. */
  readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  /**
   * Keep-alive connections to the endpoints, one per attempt in flight. The agents' limit is per
   * host and port, which several endpoints may share: limited to one endpoint's share
   * (MAX_PER_ENDPOINT), a slow endpoint held every connection to its host and port, and the other
   * endpoints there waited behind it. Attempts are limited per endpoint by the claim instead.
   */
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wakeup = new Wakeup();
  private readonly inFlight = new Map<number, { endpoint: number; done: Promise<void>; abort: AbortController }>();
  private lastPrune = 0;
  private lastBegun = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly settings: DeliverySettings,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly priority: RequestPriority,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** New deliveries were committed (or a slot freed): look now rather than at the next poll. */
  poke(): void {
    this.wakeup.poke();
  }

  /**
   * Stops claiming, lets attempts in flight finish for up to `graceMs`, then cuts them. A cut
   * attempt is not recorded: its lease runs out and the delivery is attempted again later (at least
   * once, never lost).
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.wakeup.poke();
    await this.loop;
    const finished = Promise.all([...this.inFlight.values()].map((attempt) => attempt.done));
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([finished, deadline]);
    for (const attempt of this.inFlight.values()) attempt.abort.abort();
    await finished;
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async run(): Promise<void> {
    this.wakeup.poke(); // look at once on start
    while (this.running) {
      try {
        await this.pruneNowAndThen();
        // Requests leave no room (see RequestPriority): neither claim nor read until the next attempt
        // may begin. A plain timer, which no poke shortens: under saturating creates every committed
        // batch pokes, hundreds of times a second.
        const gate = this.msUntilMayBegin();
        if (gate > 0) {
          await new Promise((resolve) => setTimeout(resolve, gate));
          continue;
        }
        // Poked (deliveries were committed, or a slot came free): claim at once. On a timed poll,
        // read first whether anything is due, so that an idle instance (or one whose endpoints all
        // wait for retries) makes no write transaction per poll.
        const due = this.wakeup.take() || ((await this.repository.msUntilNextDue()) ?? 1) <= 0;
        if (due && (await this.claimDue()) > 0) continue; // there may be more due
        // Nothing due, or due but not claimable now (every slot of its endpoint busy, or another
        // instance claiming it): a finished attempt pokes the worker; otherwise sleep until the next
        // is due.
        const wait = await this.repository.msUntilNextDue();
        await this.wakeup.sleep(wait === undefined || wait <= 0 ? POLL_MS : Math.min(POLL_MS, wait));
      } catch (error) {
        this.logger.warn({ err: error }, "webhook deliveries: could not reach storage; trying again");
        await this.wakeup.sleep(POLL_MS);
      }
    }
  }

  /** The milliseconds until the next attempt may begin (0: now), while deliveries give way to requests. */
  private msUntilMayBegin(): number {
    const gap = this.priority.attemptGapMs();
    return gap === 0 ? 0 : Math.max(0, this.lastBegun + gap - performance.now());
  }

  /**
   * Claims what is due and starts each attempt; returns how many were claimed. While attempts are
   * spaced (requests first), one at a time; attempts already in flight only wait for their answers,
   * so they do not count against it (a slow endpoint's attempt holds back no other endpoint's).
   */
  private async claimDue(): Promise<number> {
    const free = Math.min(this.priority.attemptGapMs() > 0 ? 1 : MAX_IN_FLIGHT, MAX_IN_FLIGHT - this.inFlight.size);
    if (free <= 0) return 0;
    const busy = new Map<number, number>();
    for (const { endpoint } of this.inFlight.values()) busy.set(endpoint, (busy.get(endpoint) ?? 0) + 1);
    const due = await this.repository.claimDue({
      owner: this.owner,
      limit: free,
      perEndpoint: MAX_PER_ENDPOINT,
      leaseMs: this.settings.timeoutMs + LEASE_MARGIN_MS,
      busy: [...busy],
      holding: [...this.inFlight.keys()],
    });
    for (const delivery of due) this.begin(delivery);
    return due.length;
  }

  private begin(delivery: DueDelivery): void {
    this.priority.attempted();
    this.lastBegun = performance.now();
    const abort = new AbortController();
    const done = this.attempt(delivery, abort.signal)
      .catch((error: unknown) =>
        this.logger.error({ err: error, delivery: delivery.delivery }, "webhook attempt failed to settle"),
      )
      .finally(() => {
        this.inFlight.delete(delivery.delivery);
        this.poke(); // a slot is free
      });
    this.inFlight.set(delivery.delivery, { endpoint: delivery.endpoint, done, abort });
  }

  private async attempt(delivery: DueDelivery, stopped: AbortSignal): Promise<void> {
    const started = performance.now();
    const answer = await this.send(delivery, stopped);
    if (stopped.aborted) return; // shutting down: the lease runs out and the delivery is tried again
    const result = this.resultOf(delivery, answer);
    if (!(await this.settle(delivery.delivery, result, stopped))) return; // shut down before it could be recorded
    const outcome: WebhookAttemptOutcome = result.kind === "endpoint-gone" ? "endpoint_gone" : result.kind;
    this.metrics.countWebhookAttempt(outcome);
    this.logger.info(
      {
        eventId: delivery.eventId,
        type: delivery.type,
        endpoint: delivery.endpoint,
        url: shownUrl(delivery.url),
        attempt: delivery.attempt,
        status: answer.status,
        ...(answer.error === undefined ? {} : { error: answer.error }),
        outcome,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
      },
      "webhook attempt",
    );
  }

  /**
   * One signed POST; never throws: a failure to get an answer is an answer without a status. Sent
   * with node:http(s) over keep-alive connections (one pool per worker): a delivery costs about a
   * quarter of the CPU that `fetch` took, which matters because every create makes one.
   *
   * The time limit covers the whole answer, its body included: an endpoint that sends its status
   * line and then trickles its body must not hold a connection (and the attempt's slot) past it.
   * The body says nothing (the status decides), so at most MAX_ANSWER_BODY_BYTES of it are read;
   * past that the connection is destroyed with the rest.
   */
  private send(delivery: DueDelivery, stopped: AbortSignal): Promise<Answer> {
    const timestamp = Math.floor(Date.now() / 1000);
    const { timeoutMs } = this.settings;
    return new Promise<Answer>((resolve) => {
      let url: URL;
      try {
        url = new URL(delivery.url);
      } catch (error) {
        resolve({ error: String((error as Error).message) });
        return;
      }
      const https = url.protocol === "https:";
      const body = Buffer.from(delivery.body);
      /** The answer's status and Retry-After, once its head has come. */
      let head: Answer | undefined;
      const request = (https ? httpsRequest : httpRequest)(
        url,
        {
          method: "POST",
          agent: https ? this.httpsAgent : this.httpAgent,
          headers: {
            "content-type": "application/json",
            "content-length": body.length,
            "user-agent": "PlantStore-Webhooks/1.0",
            [WEBHOOK_HEADERS.id]: delivery.eventId,
            [WEBHOOK_HEADERS.timestamp]: String(timestamp),
            [WEBHOOK_HEADERS.signature]: signatureHeader(delivery.secrets, delivery.eventId, timestamp, delivery.body),
          },
          // Redirects are never followed: a 3xx is an answer like any other.
        },
        (response: IncomingMessage) => {
          const retryAfter = response.headers["retry-after"];
          head = { status: response.statusCode ?? 0, retryAfter: typeof retryAfter === "string" ? retryAfter : null };
          let read = 0;
          response.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BODY_BYTES) finish(head!, "drop the connection");
          });
          // The whole answer came: the connection goes back to the pool for the next attempt.
          response.on("end", () => finish(head!));
          response.on("error", (error: Error) => finish({ error: error.message }));
        },
      );
      // The time limit is a plain timer that destroys the request, rather than an AbortSignal
      // combined with the shutdown signal: nothing can collect it before it fires.
      const timer = setTimeout(
        () =>
          finish(
            {
              error:
                head === undefined
                  ? `no answer within ${timeoutMs} ms`
                  : `answered ${head.status}, but the answer did not end within ${timeoutMs} ms`,
            },
            "drop the connection",
          ),
        timeoutMs,
      );
      const cut = () => finish({ error: "the server is shutting down" }, "drop the connection");
      stopped.addEventListener("abort", cut, { once: true });
      let finished = false;
      function finish(answer: Answer, drop?: "drop the connection"): void {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        stopped.removeEventListener("abort", cut);
        if (drop) request.destroy();
        resolve(answer);
      }
      request.on("error", (error: Error) => finish({ error: error.message }));
      request.end(body);
    });
  }

  /**
   * Records a result, trying again while storage fails and the worker runs: an unrecorded result
   * keeps the delivery leased until the lease runs out (the attempt's timeout plus LEASE_MARGIN_MS),
   * which only a dead instance's deliveries should wait for. False when the worker was stopped first
   * (the lease then runs out, and the delivery is attempted again: at least once, never lost).
   * Recording twice is harmless: only the lease holder's first record changes the row.
   */
  private async settle(delivery: number, result: AttemptResult, stopped: AbortSignal): Promise<boolean> {
    for (let retry = 0; ; retry++) {
      try {
        await this.repository.settle(delivery, this.owner, result);
        return true;
      } catch (error) {
        if (!this.running || stopped.aborted) return false;
        this.logger.warn(
          { err: error, delivery, retry: retry + 1 },
          "could not record a webhook attempt; trying again",
        );
        const pause = SETTLE_RETRIES_MS[Math.min(retry, SETTLE_RETRIES_MS.length - 1)];
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pause);
          stopped.addEventListener("abort", done, { once: true });
          function done(): void {
            clearTimeout(timer);
            stopped.removeEventListener("abort", done);
            resolve();
          }
        });
      }
    }
  }

  private resultOf(delivery: DueDelivery, { status, retryAfter, error }: Answer): AttemptResult {
    if (status !== undefined && status >= 200 && status < 300) return { kind: "delivered", status };
    if (status === 410) return { kind: "endpoint-gone", status };
    const honoured = status === 429 || status === 503 ? retryAfterMs(retryAfter ?? null) : undefined;
    const delayMs = retryDelayMs(delivery.attempt, this.settings.retryDelaysSeconds, honoured);
    const why = error ?? `answered ${status}`;
    return delayMs === undefined
      ? { kind: "failed", ...(status === undefined ? {} : { status }), error: why }
      : { kind: "retry", delayMs, ...(status === undefined ? {} : { status }), error: why };
  }

  private async pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    let pruned = 0;
    for (let step = PRUNE_BATCH; step === PRUNE_BATCH && this.running;) {
      step = await this.repository.prune(Date.now() - this.settings.retentionMs, PRUNE_BATCH);
      pruned += step;
    }
    if (pruned > 0) this.logger.info({ pruned }, "pruned delivered webhook events");
  }
}

/**
 * The worker's sleep, and what ends it early: a poke. A poke that comes while the worker is awake is
 * kept, so that its next sleep does not begin: one between two looks is never lost.
 */
class Wakeup {
  private poked = false;
  private wake: (() => void) | undefined;

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Whether a poke came since the last take: the worker is about to look at what it announced. */
  take(): boolean {
    const poked = this.poked;
    this.poked = false;
    return poked;
  }

  /** Sleeps up to `ms`, or not at all when a poke came since the last take. */
  sleep(ms: number): Promise<void> {
    if (this.poked) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
