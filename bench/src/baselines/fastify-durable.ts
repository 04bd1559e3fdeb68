// fastify-durable: what a user might pick instead. Fastify 5, a JSON schema for the body (validated by
// Fastify's Ajv, answered with its compiled serializer), better-sqlite3 synchronous=FULL, one transaction
// per request.
import Fastify from "fastify";
import { announceListening, readBaselineEnv } from "./baseline-env.js";
import { openDurablePlants } from "./durable-plants.js";

const { port, dbPath, tokens } = readBaselineEnv();
const createPlant = openDurablePlants(dbPath);

const text = (maxLength: number) => ({ type: "string", minLength: 1, maxLength }) as const;
const plantSchema = {
  type: "object",
  properties: { name: text(256), tag: text(64) },
  required: ["name"],
} as const;
const errorSchema = {
  type: "object",
  properties: { error: { type: "integer" }, message: { type: "string" } },
  required: ["error", "message"],
} as const;

interface NewPlantBody {
  id: number;
  name: string;
  tag?: string;
}

const app = Fastify();

// The bearer check runs before the body is read.
app.addHook("onRequest", async (req, reply) => {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Bearer ") || !tokens.has(header.slice("Bearer ".length))) {
    return reply.code(401).send({ error: 40102, message: "invalid bearer token" });
  }
});

app.post<{ Body: NewPlantBody }>(
  "/plants",
  {
    schema: {
      body: {
        type: "object",
        properties: { id: { type: "integer" }, name: text(256), tag: text(64) },
        required: ["id", "name"],
        additionalProperties: false,
      },
      response: { 200: plantSchema, 401: errorSchema, 409: errorSchema },
    },
  },
  async (req, reply) => {
    const { id, name, tag } = req.body;
    if (createPlant({ id, name, tag }) === "conflict") {
      return reply.code(409).send({ error: 40901, message: `a different plant with id ${id} exists` });
    }
    return { name, tag };
  },
);

app.listen({ port, host: "127.0.0.1" }).then(
  () => announceListening("fastify-durable", port),
  (error: unknown) => {
    console.error(`fastify-durable could not listen on port ${port}: ${String(error)}`);
    process.exit(1);
  },
);
