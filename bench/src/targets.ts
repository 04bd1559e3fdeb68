import type { ScenarioName } from "./scenarios.js";
import { baselineScript, serverMain } from "./paths.js";

export type TargetName = "plantstore" | "bare" | "express-floor" | "naive" | "fastify-durable";

/** One server the bench loads: how to start it and which scenarios make sense for it. */
export interface TargetSpec {
  name: TargetName;
  description: string;
  script: string;
  scenarios: readonly ScenarioName[];
  /** Whether it checks the bearer token (a probe with a wrong one must get 401). */
  checksToken: boolean;
  env(options: { port: number; dbPath: string; token: string }): NodeJS.ProcessEnv;
}

const allScenarios: readonly ScenarioName[] = ["create", "replay", "conflict", "unauth"];

function baselineEnv({ port, dbPath, token }: { port: number; dbPath: string; token: string }): NodeJS.ProcessEnv {
  return { PORT: String(port), DB_PATH: dbPath, PLANTSTORE_TOKENS: token };
}

export const targetSpecs: readonly TargetSpec[] = [
  {
    name: "plantstore",
    description: "Plant Store as users run it: node apps/server/dist/main.js, SQLite file, LOG_LEVEL=info",
    script: serverMain,
    scenarios: allScenarios,
    checksToken: true,
    env: ({ port, dbPath, token }) => ({
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `sqlite:${dbPath}`,
      PLANTSTORE_TOKENS: token,
      LOG_LEVEL: "info",
    }),
  },
  {
    name: "bare",
    description: "node:http, hand validation, in-memory Map (the platform's ceiling)",
    script: baselineScript("bare"),
    scenarios: allScenarios,
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
    scenarios: allScenarios,
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
];
