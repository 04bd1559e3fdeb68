import type { extendApi, OpenApiZodAny } from "@anatine/zod-openapi";

/** The OpenAPI schema details `extendApi` takes (the generator's own type, imported as a type only). */
type SchemaDetails = NonNullable<Parameters<typeof extendApi>[1]>;

/**
 * Attaches OpenAPI details (description, example, format…) to a schema, for `openapi.ts`'s
 * generator to read. It does what `@anatine/zod-openapi`'s `extendApi` does (merge into the
 * schema's `metaOpenApi`, which its `generateSchema` reads), written here so that the contract's
 * main entry imports nothing of the generator package: `extendApi` lives in a CommonJS module
 * with the whole generator and its deep-merge dependency, which a browser bundle of the client
 * would carry (about 8 kB minified) without ever running it.
 */
export function openApiMeta<T extends OpenApiZodAny>(schema: T, details: SchemaDetails = {}): T {
  schema.metaOpenApi = Object.assign(schema.metaOpenApi ?? {}, details);
  return schema;
}
