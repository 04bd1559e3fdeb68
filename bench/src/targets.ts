import type { ScenarioName } from "./scenarios.js";
import { baselineScript, serverMain } from "./paths.js";

export type TargetName =
  | "plantstore"
  | "plantstore-webhooks"
  | "plantstore-ratelimited"
  | "plantstore-pg"
  | "plantstore-10m"
  | "plantstore-subscribers"
  | "bare"
  | "express-floor"
  | "naive"
  | "fastify-durable"
  | "fastify-pg";

/** One server the bench loads: how to start it and which scenarios make sense for it. */
export interface TargetSpec {
  name: TargetName;
  description: string;
  script: string;
  scenarios: readonly ScenarioName[];
  /** Whether it checks the bearer token (a probe with a wrong one must get 401). */
  checksToken: boolean;
  /** Needs a PostgreSQL database (the bench makes a fresh one, and drops it after). */
  needsPostgres?: boolean;
  /** Sends webhook events (the bench runs a receiver that answers 204). */
  needsWebhookReceiver?: boolean;
  /** Starts on a store already holding `largeStorePlants` plants (see large-store.ts). */
  largeStore?: boolean;
  /** Change streams (GET /plants/changes) the bench keeps open on it while it is loaded (subscribers.ts). */
  subscribers?: number;
  env(options: TargetEnvOptions): NodeJS.ProcessEnv;
}

export interface TargetEnvOptions {
  port: number;
  dbPath: string;
  token: string;
  /** A fresh PostgreSQL database's URL, for targets that need one. */
  postgresUrl?: string;
  /** Where webhook events go, for targets that send them. */
  webhookUrl?: string;
}

const writeScenarios: readonly ScenarioName[] = ["create", "replay", "conflict", "unauth"];
const allScenarios: readonly ScenarioName[] = [...writeScenarios, "get", "list", "update", "delete"];
/** Plant Store's own refusals besides the 401 (fastify-durable has no scopes to refuse with). */
const ownRefusals: readonly ScenarioName[] = ["forbidden", "notfound", "method"];

/** Live change streams on the subscribers target (issue 39: creates with 100 of them ≥ 0.9× none). */
export const BENCH_SUBSCRIBERS = 100;

function baselineEnv({ port, dbPath, token, postgresUrl }: TargetEnvOptions): NodeJS.ProcessEnv {
  return { PORT: String(port), DB_PATH: dbPath, PLANTSTORE_TOKENS: token, DATABASE_URL: postgresUrl };
}

/**
 * Plant Store as users run it, with the database it is given. Its tokens: the bench's, with every
 * scope, and `<token>-readonly`, which may only read (the forbidden scenario's 403s).
 */
function plantStoreEnv({ port, token }: TargetEnvOptions, databaseUrl: string): NodeJS.ProcessEnv {
  return {
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    PLANTSTORE_TOKENS: `${token},${token}-readonly:plants:read`,
    LOG_LEVEL: "info",
  };
}

/** A webhook secret for the bench (a fixed one: nothing here is secret). */
/** A limit no bench run reaches: every request pays for the limiter and its headers, none is refused. */
export const RATE_LIMIT_TOO_HIGH_TO_REFUSE = "999999999/1s";

export const BENCH_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

export const targetSpecs: readonly TargetSpec[] = [
  {
    name: "plantstore",
    description: "Plant Store as users run it: node apps/server/dist/main.js, SQLite file, LOG_LEVEL=info",
    script: serverMain,
    scenarios: [...allScenarios, ...ownRefusals],
    checksToken: true,
    env: (options) => plantStoreEnv(options, `sqlite:${options.dbPath}`),
  },
  {
    name: "plantstore-subscribers",
    description: `plantstore with ${BENCH_SUBSCRIBERS} change streams open (GET /plants/changes, read by the bench): every create is sent to each`,
    script: serverMain,
    scenarios: ["create"],
    checksToken: true,
    subscribers: BENCH_SUBSCRIBERS,
    env: (options) => plantStoreEnv(options, `sqlite:${options.dbPath}`),
  },
  {
    name: "plantstore-webhooks",
    description:
      "plantstore with one webhook endpoint (a local receiver answering 204): every create writes and sends an event",
    script: serverMain,
    scenarios: ["create"],
    checksToken: true,
    needsWebhookReceiver: true,
    env: (options) => ({
      ...plantStoreEnv(options, `sqlite:${options.dbPath}`),
      PLANTSTORE_WEBHOOK_URLS: options.webhookUrl,
      PLANTSTORE_WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET,
    }),
  },
  {
    name: "plantstore-ratelimited",
    description: "plantstore with a rate limit too high to refuse anything: the limiter's cost on every request",
    script: serverMain,
    scenarios: ["create"],
    checksToken: true,
    env: (options) => ({
      ...plantStoreEnv(options, `sqlite:${options.dbPath}`),
      PLANTSTORE_RATE_LIMIT: RATE_LIMIT_TOO_HIGH_TO_REFUSE,
    }),
  },
  {
    name: "plantstore-10m",
    description: "plantstore on a SQLite file that already holds 10 million plants",
    script: serverMain,
    scenarios: ["create", "list", "list-deep"],
    checksToken: true,
    largeStore: true,
    env: (options) => plantStoreEnv(options, `sqlite:${options.dbPath}`),
  },
  {
    name: "plantstore-pg",
    description: "plantstore on PostgreSQL (a fresh database on 127.0.0.1, synchronous_commit on)",
    script: serverMain,
    scenarios: ["create", "replay", "get"],
    checksToken: true,
    needsPostgres: true,
    env: (options) => plantStoreEnv(options, options.postgresUrl ?? ""),
  },
  {
    name: "bare",
    description: "node:http, hand validation, in-memory Map (the platform's ceiling)",
    script: baselineScript("bare"),
    scenarios: writeScenarios,
    checksToken: true,
    env: baselineEnv,
  },
  {
    name: "express-floor",
    description: "Express 4 answering a fixed JSON body, nothing parsed (the framework's floor)",
    script: baselineScript("express-floor"),
    scenarios: ["create"],
    checksToken: false,
    env: baselineEnv,
  },
  {
    name: "naive",
    description: "Express 4 + express.json() + ts-rest + zod + better-sqlite3 WAL synchronous=FULL",
    script: baselineScript("naive"),
    scenarios: writeScenarios,
    checksToken: true,
    env: baselineEnv,
  },
  {
    name: "fastify-durable",
    description: "Fastify 5 + JSON schema + better-sqlite3 WAL synchronous=FULL",
    script: baselineScript("fastify-durable"),
    scenarios: allScenarios,
    checksToken: true,
    env: baselineEnv,
  },
  {
    name: "fastify-pg",
    description: "Fastify 5 + JSON schema + pg, one transaction per create (synchronous_commit on)",
    script: baselineScript("fastify-pg"),
    scenarios: ["create", "replay", "get"],
    checksToken: true,
    needsPostgres: true,
    env: baselineEnv,
  },
];
