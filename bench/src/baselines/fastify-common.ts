// What the two Fastify baselines share: the schemas of the contract's bodies, and the bearer check.
import type { FastifyInstance } from "fastify";

export const text = (maxLength: number) => ({ type: "string", minLength: 1, maxLength }) as const;

export const plantSchema = {
  type: "object",
  properties: { name: text(256), tag: text(64) },
  required: ["name"],
} as const;

export const errorSchema = {
  type: "object",
  properties: { error: { type: "integer" }, message: { type: "string" } },
  required: ["error", "message"],
} as const;

export interface NewPlantBody {
  id: number;
  name: string;
  tag?: string;
}

export const newPlantSchema = {
  type: "object",
  properties: { id: { type: "integer" }, name: text(256), tag: text(64) },
  required: ["id", "name"],
  additionalProperties: false,
} as const;

/** The bearer check, before the body is read (as Plant Store's gate). */
export function requireBearer(app: FastifyInstance, tokens: ReadonlySet<string>): void {
  app.addHook("onRequest", async (req, reply) => {
    const header = req.headers.authorization ?? "";
    if (!header.startsWith("Bearer ") || !tokens.has(header.slice("Bearer ".length))) {
      return reply.code(401).send({ error: 40102, message: "invalid bearer token" });
    }
  });
}
