import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defaultConfig, type Config } from "./config.js";
import { createPipeline } from "./http/pipeline.js";
import { RateLimiter } from "./http/rate-limit.js";
import { createLogger, type Logger } from "./logger.js";
import { Metrics } from "./metrics.js";
import { openStorage } from "./store/open-storage.js";
import type { Storage } from "./store/storage.js";
import { tokensCommand } from "./admin/command-line.js";
import { createFirstRunToken } from "./tokens/first-run-token.js";
import { TokenVerifier } from "./tokens/token-verifier.js";
import { applyWebhookSettings } from "./webhooks/configured-endpoints.js";
import { DeliveryWorker } from "./webhooks/delivery-worker.js";
import { ChangeFeed } from "./changes/change-feed.js";
import { RequestPriority } from "./webhooks/request-priority.js";

export interface RunningServer {
  url: string;
  /** The address it listens on (HOST). */
  host: string;
  port: number;
  storage: Storage;
  logger: Logger;
  /** Set when this start created the first API token (shown once, never stored in clear). */
  firstRunToken?: string;
  /**
   * Graceful stop: refuse new connections, let requests in flight finish (bodies still arriving
   * included), commit the last batch, close storage. Resolves true when everything finished within
   * the shutdown deadline, false when connections had to be cut.
   */
  close(): Promise<boolean>;
}

/** Keep-alive longer than the usual 60 s of load balancers, so that they close first (no reset races). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const HEADERS_TIMEOUT_MS = 20_000;

/**
 * At most `maxConnections` open at once (each holds a file descriptor and buffers): past it Node
 * closes a new connection as it arrives, before reading anything, and the drop is counted.
 */
function limitConnections(server: Server, config: Config, metrics: Metrics): void {
  server.maxConnections = config.maxConnections;
  server.on("drop", () => metrics.countDroppedConnection());
}

function applyTimeouts(server: Server, config: Config): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // A backstop behind the body reader's own deadline, which answers with a JSON 408 first.
  server.requestTimeout = Math.max(HEADERS_TIMEOUT_MS, config.bodyTimeoutMs + 5_000);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Config → storage → tokens → the request pipeline (http/pipeline.ts) → listening. `main.ts` adds
 * signals; tests call this directly.
 */
export async function startServer(overrides: Partial<Config> = {}): Promise<RunningServer> {
  const config: Config = { ...defaultConfig, ...overrides };
  const logger = createLogger(config.logLevel);
  const metrics = new Metrics();
  let deliveries: DeliveryWorker | undefined;
  let changes: ChangeFeed | undefined;
  const storage = await openStorage(config.databaseUrl, {
    poolMax: config.pgPoolMax,
    connectionTimeoutMs: config.pgConnectionTimeoutMs,
    idleTimeoutMs: config.pgIdleTimeoutMs,
    logger,
    observeBatch: (size, seconds) => metrics.observeBatch(size, seconds),
    // A commit wrote webhook events (deliveries to make): send them now rather than at the next poll.
    onDeliveries: () => deliveries?.poke(),
    // A commit wrote changes: this instance's streams read them now rather than at the next poll.
    onChanges: () => changes?.wake(),
  });
  let shuttingDown = false;
  try {
    await applyWebhookSettings(storage.webhooks, config.webhookUrls, config.webhookSecret ?? "", logger);
    deliveries = new DeliveryWorker(
      storage.webhooks,
      {
        retryDelaysSeconds: config.webhookRetryDelaysSeconds,
        timeoutMs: config.webhookTimeoutMs,
        retentionMs: config.webhookRetentionHours * 3_600_000,
      },
      logger,
      metrics,
      new RequestPriority(() => metrics.answered),
    );
    metrics.watchPendingWebhooks(() => storage.webhooks.oldestPendingAgeSeconds());
    const firstRunToken = await createFirstRunToken(config.tokens, storage.tokens);
    const verifier = new TokenVerifier(config.tokens, storage.tokens, logger);
    await verifier.start();
    if (config.tokens.length === 0 && verifier.storedCount === 0) {
      // Every token was revoked (or none was ever made here): no new one is minted at a restart.
      logger.warn(
        { create: tokensCommand("create") },
        "no active API token: requests that need one are answered 401 until a token is created",
      );
    }
    changes = new ChangeFeed(
      storage.changes,
      {
        pollMs: config.changesPollMs,
        heartbeatMs: config.changesHeartbeatMs,
        bufferBytes: config.changesBufferBytes,
        retentionMs: config.changesRetentionHours * 3_600_000,
      },
      logger,
      metrics,
    );
    const pipeline = createPipeline({
      storage,
      changes,
      tokens: verifier,
      limiter: config.rateLimit && new RateLimiter(config.rateLimit),
      logger,
      metrics,
      bodyLimitBytes: config.bodyLimitBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
      corsOrigins: config.corsOrigins,
      isShuttingDown: () => shuttingDown,
    });
    const server = createHttpServer(pipeline.serverOptions, pipeline.handleRequest);
    server.on("clientError", pipeline.handleParserError);
    applyTimeouts(server, config);
    limitConnections(server, config, metrics);
    const port = await listen(server, config.port, config.host);
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    deliveries.start();
    changes.start();
    logger.info({ url, storage: storage.kind, location: storage.location }, "listening");

    let closing: Promise<boolean> | undefined;
    const close = () =>
      (closing ??= (async () => {
        shuttingDown = true;
        logger.info("shutting down");
        // Streams never finish by themselves: they end now, and their clients resume elsewhere.
        const streamsClosed = changes?.close();
        // Requests in flight and webhook attempts in flight finish side by side, within one deadline.
        const [finished] = await Promise.all([
          drain(server, config.shutdownTimeoutMs),
          deliveries?.stop(config.shutdownTimeoutMs),
        ]);
        verifier.stop();
        await streamsClosed;
        await storage.close();
        logger.info({ clean: finished }, "stopped");
        return finished;
      })());
    return { url, host: config.host, port, storage, logger, close, ...(firstRunToken ? { firstRunToken } : {}) };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** Stops accepting and waits for open connections to finish, cutting them at the deadline. */
function drain(server: Server, deadlineMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let finished = true;
    // Idle keep-alive connections close now; busy ones close after their response (Connection: close).
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => {
      finished = false;
      server.closeAllConnections();
    }, deadlineMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve(finished);
    });
    server.closeIdleConnections();
  });
}
