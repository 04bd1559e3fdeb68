/** Environment → validated configuration. A bad value is one line naming the variable, never a stack trace. */
import { parseTokenEntry } from "./tokens/scopes.js";

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
  bodyLimitBytes: number;
  bodyTimeoutMs: number;
  shutdownTimeoutMs: number;
  pgPoolMax: number;
  pgConnectionTimeoutMs: number;
  pgIdleTimeoutMs: number;
}

export interface RateLimit {
  quota: number;
  windowSeconds: number;
}

const DEFAULT_DATABASE_URL = "sqlite:./data/plantstore.db";

export const defaultConfig: Readonly<Config> = {
  host: "127.0.0.1",
  port: 3000,
  databaseUrl: DEFAULT_DATABASE_URL,
  tokens: [],
  logLevel: "info",
  bodyLimitBytes: 16 * 1024,
  bodyTimeoutMs: 10_000,
  shutdownTimeoutMs: 10_000,
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

function tokens(env: Env): string[] {
  const list = (env.PLANTSTORE_TOKENS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
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
  return {
    host,
    port: integer(env, "PORT", defaultConfig.port, 0, 65535),
    databaseUrl: databaseUrl(env),
    tokens: tokens(env),
    rateLimit: rateLimit(env),
    logLevel: logLevel(env),
    bodyLimitBytes: integer(env, "PLANTSTORE_BODY_LIMIT_BYTES", defaultConfig.bodyLimitBytes, 1024, 1024 * 1024),
    bodyTimeoutMs: integer(env, "PLANTSTORE_BODY_TIMEOUT_MS", defaultConfig.bodyTimeoutMs, 100, 600_000),
    shutdownTimeoutMs: integer(env, "PLANTSTORE_SHUTDOWN_TIMEOUT_MS", defaultConfig.shutdownTimeoutMs, 0, 600_000),
    pgPoolMax: integer(env, "PG_POOL_MAX", defaultConfig.pgPoolMax, 1, 1000),
    pgConnectionTimeoutMs: integer(env, "PG_CONNECTION_TIMEOUT_MS", defaultConfig.pgConnectionTimeoutMs, 100, 600_000),
    pgIdleTimeoutMs: integer(env, "PG_IDLE_TIMEOUT_MS", defaultConfig.pgIdleTimeoutMs, 0, 3_600_000),
  };
}
