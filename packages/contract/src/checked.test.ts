import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checked, Refused } from "./checked.js";
import { plantStoreContract } from "./contract.js";
import { ChangeStreamHeaders, ChangeStreamQuery } from "./changes.js";
import { NewPlant, PlantIdPath, PlantName } from "./plant.js";
import { WebhookEvent } from "./webhooks.js";

/** Every schema reachable from `schema`: the wrappers, shapes, members and options zod keeps in `_def`. */
function* schemasIn(schema: z.ZodTypeAny, seen = new Set<z.ZodTypeAny>()): Generator<z.ZodTypeAny> {
  if (seen.has(schema)) return;
  seen.add(schema);
  yield schema;
  const def = schema._def as Record<string, unknown>;
  const inner: unknown[] = [def.innerType, def.schema, def.type, def.in, def.out, def.left, def.right];
  if (schema instanceof z.ZodObject) inner.push(...Object.values(schema.shape as Record<string, unknown>));
  if (Array.isArray(def.options)) inner.push(...(def.options as unknown[]));
  for (const candidate of inner) if (candidate instanceof z.ZodType) yield* schemasIn(candidate, seen);
}

/** Each operation's path parameters, query, headers, body and responses, where it has them. */
const contractSchemas = Object.values(plantStoreContract).flatMap((route) => {
  const { pathParams, query, headers, body, responses } = route as Partial<Record<string, unknown>> & {
    responses: Record<string, unknown>;
  };
  return [pathParams, query, headers, body, ...Object.values(responses)].filter(
    (part): part is z.ZodTypeAny => part instanceof z.ZodType,
  );
});

describe("checked schemas", () => {
  it("the contract has no ZodEffects (refine, superRefine, transform, preprocess): each would promote every request it parses", () => {
    const all = [...contractSchemas, ChangeStreamQuery, ChangeStreamHeaders, WebhookEvent];
    const effects = all.flatMap((schema) => [...schemasIn(schema)]).filter((s) => s instanceof z.ZodEffects);
    expect(effects.map((schema) => schema.description ?? JSON.stringify(schema._def).slice(0, 120))).toEqual([]);
    // The walk does reach the checked fields (a walk that saw nothing would pass too).
    expect([...schemasIn(NewPlant)].filter((schema) => schema.constructor.name === "ZodChecked")).toHaveLength(3);
  });

  it("answers the check's value, or one issue per problem, each with its path", () => {
    const even = z.object({ n: checked<number>((value) => (value === 2 ? 2 : new Refused("odd", "not two"))) });
    expect(even.parse({ n: 2 })).toEqual({ n: 2 });
    const refused = even.safeParse({ n: 3 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map(({ path, message, code }) => ({ path, message, code }))).toEqual([
      { path: ["n"], message: "odd", code: "custom" },
      { path: ["n"], message: "not two", code: "custom" },
    ]);
  });

  it("keeps the contract's messages and types", () => {
    expect(PlantName.safeParse("\u0001".repeat(300)).error?.issues.map((issue) => issue.message)).toEqual([
      "must be at most 256 characters",
      "must not contain control characters",
    ]);
    expect(PlantName.safeParse(undefined).error?.issues[0]?.message).toBe("is required");
    expect(PlantName.safeParse(7).error?.issues[0]?.message).toBe("must be a string");
    expect(PlantIdPath.parse("9223372036854775807")).toBe(9223372036854775807n);
    expect(PlantIdPath.safeParse(7).error?.issues[0]?.message).toBe("Expected string, received number");
    expect(NewPlant.parse({ id: 7, name: "Fern" })).toEqual({ id: 7n, name: "Fern" });
  });
});
