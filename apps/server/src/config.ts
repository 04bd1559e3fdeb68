/** Environment → validated configuration. A bad value is one line naming the variable, never a stack trace. */
import { webhookSecretKey } from "@plantstore/contract/webhook-signature";
import { defaultDatabasePath } from "./default-database.js";
import { parseTokenEntry } from "./tokens/scopes.js";
import { DEFAULT_RETRY_DELAYS_SECONDS } from "./webhooks/schedule.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** `PLANTSTORE_TOKENS` entries: `<token>` or `<token>:<scope>+<scope>` (see tokens/scopes.ts). */
  tokens: string[];
  /** Requests per token per window, per instance; undefined when off. */
  rateLimit?: RateLimit;
  logLevel: LogLevel;
  /** Endpoints that receive every event, signed with `webhookSecret` (PLANTSTORE_WEBHOOK_URLS). */
  webhookUrls: string[];
  webhookSecret?: string;
  /** Seconds between delivery attempts (PLANTSTORE_WEBHOOK_RETRY_DELAYS). */
  webhookRetryDelaysSeconds: number[];
  webhookTimeoutMs: number;
  webhookRetentionHours: number;
  /** How long the change log keeps a change (GET /plants/changes resumes from cursors this recent). */
  changesRetentionHours: number;
  /** How often each instance reads the change log for its streams (also woken by its own commits). */
  changesPollMs: number;
  /** A heartbeat comment goes to an idle stream this often. */
  changesHeartbeatMs: number;
  /** A stream whose unsent bytes pass this is ended (its client resumes from its cursor). */
  changesBufferBytes: number;
  bodyLimitBytes: number;
  bodyTimeoutMs: number;
  /** Origins whose pages may call the API from a browser (PLANTSTORE_CORS_ORIGINS); empty: CORS off. */
  corsOrigins: string[];
  shutdownTimeoutMs: number;
  /** Open connections at most; past it new ones are closed as they arrive (Node's maxConnections). */
  maxConnections: number;
  pgPoolMax: number;
  pgConnectionTimeoutMs: number;
  pgIdleTimeoutMs: number;
}

export interface RateLimit {
  quota: number;
  windowSeconds: number;
}

/** One place whatever the working directory (see defaultDatabasePath). */
const DEFAULT_DATABASE_URL = `sqlite:${defaultDatabasePath()}`;

export const defaultConfig: Readonly<Config> = {
  host: "127.0.0.1",
  port: 3000,
  databaseUrl: DEFAULT_DATABASE_URL,
  tokens: [],
  logLevel: "info",
  webhookUrls: [],
  webhookRetryDelaysSeconds: DEFAULT_RETRY_DELAYS_SECONDS,
  webhookTimeoutMs: 15_000,
  webhookRetentionHours: 168,
  changesRetentionHours: 168,
  changesPollMs: 200,
  changesHeartbeatMs: 15_000,
  changesBufferBytes: 1024 * 1024,
  bodyLimitBytes: 16 * 1024,
  bodyTimeoutMs: 10_000,
  corsOrigins: [],
  shutdownTimeoutMs: 10_000,
  maxConnections: 1_000,
  pgPoolMax: 10,
  pgConnectionTimeoutMs: 5_000,
  pgIdleTimeoutMs: 30_000,
};

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** A comma-separated variable's entries, trimmed, empty ones left out. */
function commaList(env: Env, name: string): string[] {
  return (env[name] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function tokens(env: Env): string[] {
  const list = commaList(env, "PLANTSTORE_TOKENS");
  for (const [index, entry] of list.entries()) {
    try {
      parseTokenEntry(entry);
    } catch (error) {
      // The message never echoes the token itself.
      throw new ConfigError(`PLANTSTORE_TOKENS entry #${index + 1} ${(error as Error).message}`);
    }
  }
  return list;
}

const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600 };

/** `<requests>/<window>`: `100/1s`, `6000/1m`, `20000/1h` (the window's number may be left out: `100/s`). */
function rateLimit(env: Env): RateLimit | undefined {
  const raw = env.PLANTSTORE_RATE_LIMIT?.trim();
  if (raw === undefined || raw === "") return undefined;
  const match = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,5})?([smh])$/.exec(raw);
  if (match === null) {
    throw new ConfigError(`PLANTSTORE_RATE_LIMIT must be <requests>/<window> such as 100/1s or 6000/1m, got "${raw}"`);
  }
  return { quota: Number(match[1]), windowSeconds: Number(match[2] ?? 1) * WINDOW_UNITS[match[3]!]! };
}

/** Comma-separated http(s) URLs, each at most once. */
function webhookUrls(env: Env): string[] {
  const urls = commaList(env, "PLANTSTORE_WEBHOOK_URLS");
  for (const [index, url] of urls.entries()) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // reported below
    }
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw new ConfigError(`PLANTSTORE_WEBHOOK_URLS entry #${index + 1} must be an http:// or https:// URL`);
    }
    if (urls.indexOf(url) !== index) throw new ConfigError(`PLANTSTORE_WEBHOOK_URLS lists ${parsed.origin}… twice`);
  }
  return urls;
}

/**
 * Comma-separated exact origins, each as a browser sends it in `Origin`: `http` or `https`, a
 * lowercase host, a port only when not the default, nothing after it (`https://app.example.com`).
 * An entry a browser would never send could never match, so it stops the start instead.
 */
function corsOrigins(env: Env): string[] {
  const origins = commaList(env, "PLANTSTORE_CORS_ORIGINS");
  for (const [index, entry] of origins.entries()) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if (url.protocol === "http:" || url.protocol === "https:") origin = url.origin;
    } catch {
      // reported below
    }
    if (origin !== entry) {
      const hint = origin === undefined ? "" : ` (did you mean "${origin}"?)`;
      throw new ConfigError(
        `PLANTSTORE_CORS_ORIGINS entry #${index + 1} "${entry}" must be an exact origin such as https://app.example.com: scheme, host and port only${hint}`,
      );
    }
  }
  return [...new Set(origins)];
}

function webhookSecret(env: Env, urls: readonly string[]): string | undefined {
  const raw = env.PLANTSTORE_WEBHOOK_SECRET?.trim();
  if (raw === undefined || raw === "") {
    if (urls.length > 0)
      throw new ConfigError("PLANTSTORE_WEBHOOK_SECRET is required when PLANTSTORE_WEBHOOK_URLS is set");
    return undefined;
  }
  try {
    webhookSecretKey(raw);
  } catch (error) {
    throw new ConfigError(`PLANTSTORE_WEBHOOK_SECRET ${(error as Error).message}`);
  }
  return raw;
}

/** Comma-separated seconds, decimals allowed (tests use 0.2), each at most a week. */
function retryDelays(env: Env): number[] {
  const raw = env.PLANTSTORE_WEBHOOK_RETRY_DELAYS?.trim();
  if (raw === undefined || raw === "") return DEFAULT_RETRY_DELAYS_SECONDS;
  const delays = raw.split(",").map((delay) => delay.trim());
  if (delays.some((delay) => !/^\d{1,6}(\.\d{1,3})?$/.test(delay) || Number(delay) > 604_800)) {
    throw new ConfigError(
      `PLANTSTORE_WEBHOOK_RETRY_DELAYS must be comma-separated seconds (0 to 604800, such as 5,300,1800), got "${raw}"`,
    );
  }
  return delays.map(Number);
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL?.trim();
  if (raw === undefined || raw === "") return DEFAULT_DATABASE_URL;
  if (/^sqlite:.+/.test(raw) || /^postgres(ql)?:\/\/.+/.test(raw)) return raw;
  throw new ConfigError(
    'DATABASE_URL must be "sqlite:<path>", "sqlite::memory:" or "postgres://user:password@host:port/database"',
  );
}

function logLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === "") return defaultConfig.logLevel;
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return raw as LogLevel;
  throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"`);
}

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST?.trim() || defaultConfig.host;
  const urls = webhookUrls(env);
  return {
    host,
    port: integer(env, "PORT", defaultConfig.port, 0, 65535),
    databaseUrl: databaseUrl(env),
    tokens: tokens(env),
    rateLimit: rateLimit(env),
    logLevel: logLevel(env),
    webhookUrls: urls,
    webhookSecret: webhookSecret(env, urls),
    webhookRetryDelaysSeconds: retryDelays(env),
    webhookTimeoutMs: integer(env, "PLANTSTORE_WEBHOOK_TIMEOUT_MS", defaultConfig.webhookTimeoutMs, 100, 600_000),
    webhookRetentionHours: integer(
      env,
      "PLANTSTORE_WEBHOOK_RETENTION_HOURS",
      defaultConfig.webhookRetentionHours,
      1,
      87_600,
    ),
    changesRetentionHours: integer(
      env,
      "PLANTSTORE_CHANGES_RETENTION_HOURS",
      defaultConfig.changesRetentionHours,
      1,
      24 * 365,
    ),
    changesPollMs: integer(env, "PLANTSTORE_CHANGES_POLL_MS", defaultConfig.changesPollMs, 10, 1_000),
    changesHeartbeatMs: integer(env, "PLANTSTORE_CHANGES_HEARTBEAT_MS", defaultConfig.changesHeartbeatMs, 100, 300_000),
    changesBufferBytes: integer(
      env,
      "PLANTSTORE_CHANGES_BUFFER_BYTES",
      defaultConfig.changesBufferBytes,
      16 * 1024,
      64 * 1024 * 1024,
    ),
    bodyLimitBytes: integer(env, "PLANTSTORE_BODY_LIMIT_BYTES", defaultConfig.bodyLimitBytes, 1024, 1024 * 1024),
    bodyTimeoutMs: integer(env, "PLANTSTORE_BODY_TIMEOUT_MS", defaultConfig.bodyTimeoutMs, 100, 600_000),
    corsOrigins: corsOrigins(env),
    shutdownTimeoutMs: integer(env, "PLANTSTORE_SHUTDOWN_TIMEOUT_MS", defaultConfig.shutdownTimeoutMs, 0, 600_000),
    maxConnections: integer(env, "PLANTSTORE_MAX_CONNECTIONS", defaultConfig.maxConnections, 1, 1_000_000),
    pgPoolMax: integer(env, "PG_POOL_MAX", defaultConfig.pgPoolMax, 1, 1000),
    pgConnectionTimeoutMs: integer(env, "PG_CONNECTION_TIMEOUT_MS", defaultConfig.pgConnectionTimeoutMs, 100, 600_000),
    pgIdleTimeoutMs: integer(env, "PG_IDLE_TIMEOUT_MS", defaultConfig.pgIdleTimeoutMs, 0, 3_600_000),
  };
}
