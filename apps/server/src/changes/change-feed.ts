import type { ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import type { Metrics, StreamEnd } from "../metrics.js";
import type { ChangeEntry, ChangeLog } from "../store/storage.js";
import { changeEvent, HEARTBEAT, resetEvent, streamStart } from "./server-sent-events.js";

/** Changes read from the log at once: bounds what one read holds in memory. */
const PAGE = 500;
/** The change log is pruned this often, in steps of PRUNE_BATCH (each a short transaction). */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 10_000;

export interface ChangeFeedSettings {
  pollMs: number;
  heartbeatMs: number;
  /** A stream whose unsent bytes pass this is ended; its client resumes from its cursor. */
  bufferBytes: number;
  retentionMs: number;
}

/** One open stream: where it is in the log, and how to tell whether its token still admits it. */
interface Subscriber {
  res: ServerResponse;
  /** The position of the last change written to it (or the cursor it started from). */
  cursor: bigint;
  /** True once it has caught up with the feed: the feed's reads reach it from then on. */
  live: boolean;
  lastWriteAt: number;
  admitted: () => boolean;
  ended: boolean;
}

/**
 * The change streams of this instance (GET /plants/changes). While any stream is open, the feed
 * reads the change log after the last position it read, every `pollMs` and at once when a commit
 * of this instance wrote changes (`wake`), one read for all its streams, and writes each change to
 * every stream that has caught up. A stream that starts behind (its client resumes from an older
 * cursor) reads its own pages until it reaches the feed. The log's positions become visible in
 * order (storage.ts, ChangeLog), so reading "after the last position seen" never skips one: no gap,
 * no duplicate, whichever instance committed it.
 *
 * Memory: a stream holds only what its socket has not taken yet, and is ended when that passes
 * `bufferBytes` (its client resumes from its cursor, from the log); the feed holds one page.
 */
export class ChangeFeed {
  private readonly subscribers = new Set<Subscriber>();
  /** The position through which the feed has read (undefined while no stream is open). */
  private head: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private closed = false;
  private lastPrune = 0;
  private pruning: Promise<void> | undefined;

  constructor(
    private readonly log: ChangeLog,
    private readonly settings: ChangeFeedSettings,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  /** Starts the retention's prune timer (the feed's reads run only while streams are open). */
  start(): void {
    this.timer = setInterval(() => this.tick(), this.settings.pollMs);
    this.timer.unref();
  }

  get streams(): number {
    return this.subscribers.size;
  }

  /**
   * Serves a stream on `res` (headers not yet written) from `after` (undefined: from now on).
   * `admitted` is asked at every poll: false ends the stream (its token was revoked).
   */
  async open(res: ServerResponse, after: bigint | undefined, admitted: () => boolean): Promise<void> {
    const { first, last } = await this.log.bounds();
    if (this.closed || res.destroyed) return;
    const subscriber: Subscriber = { res, cursor: after ?? last, live: false, lastWriteAt: 0, admitted, ended: false };
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      // nginx and other proxies: pass each event on as it comes, never hold the stream back.
      "X-Accel-Buffering": "no",
    });
    if (res.req.method === "HEAD") {
      res.end();
      return;
    }
    this.subscribers.add(subscriber);
    this.metrics.streamOpened();
    res.once("close", () => this.end(subscriber, "client"));
    if (after !== undefined && expired(after, first, last)) {
      subscriber.cursor = last;
      this.write(subscriber, resetEvent(last, resetMessage(after, first, last)));
    } else {
      this.write(subscriber, streamStart(subscriber.cursor));
    }
    this.ensureReading();
    await this.catchUp(subscriber);
  }

  /** A commit of this instance wrote changes: read them now rather than at the next poll. */
  wake(): void {
    if (this.subscribers.size > 0) this.ensureReading();
  }

  /** Ends every stream (their clients resume elsewhere) and stops. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const subscriber of this.subscribers) {
      this.end(subscriber, "shutdown");
      subscriber.res.end();
    }
    await this.reading;
    await this.pruning;
  }

  private tick(): void {
    const now = Date.now();
    for (const subscriber of this.subscribers) {
      if (subscriber.live && !this.keepsUp(subscriber)) continue;
      if (!subscriber.admitted()) {
        this.end(subscriber, "revoked");
        subscriber.res.end();
      } else if (now - subscriber.lastWriteAt >= this.settings.heartbeatMs) {
        this.write(subscriber, HEARTBEAT);
      }
    }
    if (this.subscribers.size > 0) this.ensureReading();
    if (now - this.lastPrune >= PRUNE_EVERY_MS && this.pruning === undefined) {
      this.lastPrune = now;
      this.pruning = this.prune().finally(() => (this.pruning = undefined));
    }
  }

  /** One read at a time; a wake during a read makes another right after it. */
  private ensureReading(): void {
    if (this.closed) return;
    if (this.reading !== undefined) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readLog()
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not read the change log"))
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain) {
          this.readAgain = false;
          if (this.subscribers.size > 0) this.ensureReading();
        }
      });
  }

  /** Reads the log after the feed's head, page by page, and hands each change to the live streams. */
  private async readLog(): Promise<void> {
    for (;;) {
      if (this.subscribers.size === 0) {
        this.head = undefined;
        return;
      }
      this.head ??= (await this.log.bounds()).last;
      const changes = await this.log.after(this.head, PAGE);
      if (changes.length === 0) return;
      this.head = changes[changes.length - 1]!.position;
      const whole = Buffer.from(changes.map(changeEvent).join(""));
      for (const subscriber of this.subscribers) {
        if (subscriber.live && this.keepsUp(subscriber)) this.send(subscriber, changes, whole);
      }
      if (changes.length < PAGE) return;
    }
  }

  /** A stream behind the feed reads its own pages until it reaches the feed's head, then goes live. */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    while (!subscriber.ended) {
      if (this.head !== undefined && subscriber.cursor >= this.head) {
        subscriber.live = true;
        return;
      }
      const changes = await this.log.after(subscriber.cursor, PAGE);
      if (subscriber.ended) return;
      const first = changes[0];
      if (first !== undefined && first.position !== subscriber.cursor + 1n) {
        // Pruned while it was catching up: say so rather than skip.
        const bounds = await this.log.bounds();
        subscriber.cursor = bounds.last;
        this.write(
          subscriber,
          resetEvent(bounds.last, "changes after the cursor were pruned while the stream caught up"),
        );
        continue;
      }
      this.send(subscriber, changes);
      if (subscriber.res.writableNeedDrain) {
        await drained(subscriber.res);
        continue;
      }
      if (changes.length < PAGE) {
        // At the end of the log as this read saw it: the feed takes over from here (or from its
        // own head, when it is ahead; send() skips what the stream already has).
        this.head ??= subscriber.cursor;
        if (subscriber.cursor >= this.head) {
          subscriber.live = true;
          return;
        }
      }
    }
  }

  /**
   * Writes the changes the stream does not have yet (positions above its cursor), in order, in one
   * write: one chunk and one system call per stream per read, not per change. `whole` is the page
   * already encoded, shared by every stream that wants all of it (with 100 streams open, a write per
   * change, each encoded per stream, made a create cost 3.4× its CPU without streams).
   */
  private send(subscriber: Subscriber, changes: readonly ChangeEntry[], whole?: Buffer): void {
    const from = changes.findIndex((change) => change.position > subscriber.cursor);
    if (from < 0 || subscriber.ended) return;
    const text = from === 0 && whole !== undefined ? whole : changes.slice(from).map(changeEvent).join("");
    subscriber.cursor = changes[changes.length - 1]!.position;
    this.write(subscriber, text);
    this.metrics.countStreamEvents(changes.length - from);
  }

  private write(subscriber: Subscriber, text: string | Buffer): void {
    if (subscriber.ended) return;
    subscriber.res.write(text);
    subscriber.lastWriteAt = Date.now();
  }

  /**
   * Before a live stream is given more: if its socket has not taken what it was given before (more
   * than `bufferBytes` still unsent), it reads slower than changes come, so it is ended rather than
   * held more for: cut, not ended (an end would wait behind the unsent bytes); its client resumes
   * from its last whole event. So a stream holds at most `bufferBytes` plus one page. (Checked
   * before a write, not after: a page written in one go is queued whole, even to a fast reader.)
   * A stream catching up writes a page, then waits for its socket to take it (catchUp).
   */
  private keepsUp(subscriber: Subscriber): boolean {
    if (subscriber.res.writableLength <= this.settings.bufferBytes) return true;
    this.end(subscriber, "slow");
    subscriber.res.destroy();
    return false;
  }

  private end(subscriber: Subscriber, reason: StreamEnd): void {
    if (subscriber.ended) return;
    subscriber.ended = true;
    this.subscribers.delete(subscriber);
    this.metrics.streamEnded(reason);
  }

  private async prune(): Promise<void> {
    try {
      let pruned = 0;
      for (let step = PRUNE_BATCH; step === PRUNE_BATCH && !this.closed;) {
        step = await this.log.prune(Date.now() - this.settings.retentionMs, PRUNE_BATCH);
        pruned += step;
      }
      if (pruned > 0) this.logger.info({ pruned }, "pruned the change log");
    } catch (error) {
      this.logger.warn({ err: error }, "could not prune the change log");
    }
  }
}

/** Resolves when the socket took what was written to it, or closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Whether changes after `cursor` are gone: it is below the newest position and the oldest kept is
 * not the next one (positions have no holes: a rolled-back batch gives its positions back), or it
 * is above the newest position (a cursor of another store, or of a database restored from backup).
 */
export function expired(cursor: bigint, first: bigint | undefined, last: bigint): boolean {
  if (cursor > last) return true;
  if (cursor === last) return false;
  return first === undefined || first > cursor + 1n;
}

function resetMessage(cursor: bigint, first: bigint | undefined, last: bigint): string {
  return cursor > last
    ? `cursor ${cursor} is beyond the newest change (${last}): it is not this store's; re-read the list`
    : `the changes after cursor ${cursor} are no longer kept (the oldest kept is ${first ?? last + 1n}); re-read the list`;
}
