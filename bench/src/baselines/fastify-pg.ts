// fastify-pg: what a user might pick for PostgreSQL. Fastify 5, JSON schemas, node-postgres (pg), one
// transaction per create (BEGIN, SELECT, INSERT, COMMIT: acknowledged once PostgreSQL has committed
// and flushed it, synchronous_commit on), a pool of 10 connections.
import Fastify from "fastify";
import pg from "pg";
import { announceListening, readBaselineEnv } from "./baseline-env.js";
import { errorSchema, newPlantSchema, plantSchema, requireBearer, type NewPlantBody } from "./fastify-common.js";

const { port, tokens } = readBaselineEnv();
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query("CREATE TABLE IF NOT EXISTS plants (id BIGINT PRIMARY KEY, name TEXT NOT NULL, tag TEXT)");

const app = Fastify();
requireBearer(app, tokens);

app.post<{ Body: NewPlantBody }>(
  "/plants",
  {
    schema: {
      body: newPlantSchema,
      response: {
        200: plantSchema,
        409: errorSchema,
      },
    },
  },
  async (req, reply) => {
    const { id, name, tag } = req.body;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const found = await client.query<{ name: string; tag: string | null }>(
        "SELECT name, tag FROM plants WHERE id = $1",
        [id],
      );
      const existing = found.rows[0];
      if (existing === undefined)
        await client.query("INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3)", [id, name, tag ?? null]);
      await client.query("COMMIT");
      if (existing !== undefined && (existing.name !== name || existing.tag !== (tag ?? null))) {
        reply.code(409);
        return { error: 40901, message: `a different plant with id ${id} exists` };
      }
      return { name, tag };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  },
);

app.get<{ Params: { id: number } }>(
  "/plants/:id",
  { schema: { params: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } } },
  async (req, reply) => {
    const { rows } = await pool.query<{ id: string; name: string; tag: string | null }>(
      "SELECT id, name, tag FROM plants WHERE id = $1",
      [req.params.id],
    );
    const row = rows[0];
    if (row === undefined) return reply.code(404).send({ error: 40402, message: `no plant has id ${req.params.id}` });
    return row.tag === null
      ? { id: Number(row.id), name: row.name }
      : { id: Number(row.id), name: row.name, tag: row.tag };
  },
);

app.listen({ port, host: "127.0.0.1" }).then(
  () => announceListening("fastify-pg", port),
  (error: unknown) => {
    console.error(`fastify-pg could not listen on port ${port}: ${String(error)}`);
    process.exit(1);
  },
);
