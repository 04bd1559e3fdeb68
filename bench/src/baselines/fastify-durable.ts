// fastify-durable: what a user might pick instead. Fastify 5, a JSON schema for the body, parameters and
// answers (validated by Fastify's Ajv, answered with its compiled serializer), better-sqlite3
// synchronous=FULL, one transaction per write. Creates, reads, 100-item pages, edits and deletes.
import { hash } from "node:crypto";
import Fastify from "fastify";
import { announceListening, readBaselineEnv } from "./baseline-env.js";
import { errorSchema, newPlantSchema, plantSchema, requireBearer, text, type NewPlantBody } from "./fastify-common.js";
import { openDurablePlants } from "./durable-plants.js";

const { port, dbPath, tokens } = readBaselineEnv();
const plants = openDurablePlants(dbPath);

const app = Fastify();
requireBearer(app, tokens);

app.post<{ Body: NewPlantBody }>(
  "/plants",
  {
    schema: {
      body: newPlantSchema,
      response: { 200: plantSchema, 401: errorSchema, 409: errorSchema },
    },
  },
  async (req, reply) => {
    const { id, name, tag } = req.body;
    if (plants.create({ id, name, tag }) === "conflict") {
      return reply.code(409).send({ error: 40901, message: `a different plant with id ${id} exists` });
    }
    return { name, tag };
  },
);

const storedSchema = {
  type: "object",
  properties: { id: { type: "integer" }, name: text(256), tag: text(64) },
  required: ["id", "name"],
} as const;
const idParams = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } as const;
const notFound = (id: number) => ({ error: 40402, message: `no plant has id ${id}` });

app.get<{ Params: { id: number } }>(
  "/plants/:id",
  { schema: { params: idParams, response: { 200: storedSchema, 404: errorSchema } } },
  async (req, reply) => plants.find(req.params.id) ?? reply.code(404).send(notFound(req.params.id)),
);

app.get<{ Querystring: { limit?: number; after?: number } }>(
  "/plants",
  {
    schema: {
      querystring: {
        type: "object",
        properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, after: { type: "integer" } },
        additionalProperties: false,
      },
      response: { 200: { type: "array", items: storedSchema } },
    },
  },
  async (req) => plants.page(req.query.limit ?? 100, req.query.after),
);

// An edit as Plant Store makes it: the row read and written in one fsynced transaction, the stored
// plant answered with a strong ETag (a digest of its content).
app.put<{ Params: { id: number }; Body: { name: string; tag?: string } }>(
  "/plants/:id",
  {
    schema: {
      params: idParams,
      body: {
        type: "object",
        properties: { name: text(256), tag: text(64) },
        required: ["name"],
        additionalProperties: false,
      },
      response: { 200: storedSchema, 404: errorSchema },
    },
  },
  async (req, reply) => {
    const plant = { id: req.params.id, name: req.body.name, tag: req.body.tag };
    if (!plants.update(plant)) return reply.code(404).send(notFound(plant.id));
    void reply.header(
      "ETag",
      `"${hash("sha256", JSON.stringify([plant.name, plant.tag ?? null]), "base64url").slice(0, 22)}"`,
    );
    return plant;
  },
);

app.delete<{ Params: { id: number } }>(
  "/plants/:id",
  { schema: { params: idParams, response: { 404: errorSchema } } },
  async (req, reply) =>
    plants.remove(req.params.id) ? reply.code(204).send() : reply.code(404).send(notFound(req.params.id)),
);

app.listen({ port, host: "127.0.0.1" }).then(
  () => announceListening("fastify-durable", port),
  (error: unknown) => {
    console.error(`fastify-durable could not listen on port ${port}: ${String(error)}`);
    process.exit(1);
  },
);
