import SwaggerParser from "@apidevtools/swagger-parser";
import { Validator } from "@seriousme/openapi-schema-validator";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { plantStoreContract } from "./contract.js";
import { ErrorBody, ErrorCode } from "./error.js";
import { parseExactJson } from "./exact-json.js";
import { generateOpenApi30Document, generateOpenApi31Document, serializeOpenApiDocument } from "./openapi.js";
import { NewPlant, Plant, PlantUpdate, StoredPlant } from "./plant.js";
import { PlantCreatedEvent, PlantDeletedEvent, PlantUpdatedEvent } from "./webhooks.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const REGENERATE = "`pnpm openapi` at the repository root (it builds the contract, then rewrites the files)";

// Every check reads the committed files: they are what external consumers get.
const documents = [
  { file: "openapi.json", version: "3.1.0", generate: generateOpenApi31Document, webhooksKey: "webhooks" },
  { file: "openapi-3.0.json", version: "3.0.2", generate: generateOpenApi30Document, webhooksKey: "x-webhooks" },
].map((entry) => {
  const text = readFileSync(new URL(`../${entry.file}`, import.meta.url), "utf8");
  // Read losslessly: the int64 bounds must keep every digit.
  return { ...entry, text, document: parseExactJson(text) as Json };
});
const [v31, v30] = documents as [(typeof documents)[number], (typeof documents)[number]];

const operations = (document: Json) =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );

/** Every Schema Object in a document part, with where it is. */
function* schemasIn(value: unknown, where = "#", inSchema = false): Generator<[string, Json]> {
  if (value === null || typeof value !== "object") return;
  if (inSchema && !Array.isArray(value) && "type" in value) yield [where, value as Json];
  for (const [key, item] of Object.entries(value)) {
    if (key === "example" || key === "examples") continue;
    yield* schemasIn(item, `${where}/${key}`, inSchema || key === "schema" || key === "schemas");
  }
}

describe.each(documents)("the committed $file", ({ file, version, text, document, generate, webhooksKey }) => {
  it("is exactly what the contract generates", () => {
    expect(text, `packages/contract/${file} is out of date; regenerate it with: ${REGENERATE}`).toBe(
      serializeOpenApiDocument(generate()),
    );
  });

  it(`is a valid OpenAPI ${version} document (@seriousme/openapi-schema-validator, the official JSON schemas)`, async () => {
    const result = await new Validator().validate(JSON.parse(text) as Json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe(version);
  });

  it("is checked by a validator that does reject a broken document", async () => {
    const broken = JSON.parse(text) as Json;
    broken.paths["/plants"].post.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("has info (title, version 1.0.0, MIT, contact), a relative server and global bearer security", () => {
    expect(document.info).toMatchObject({ title: "Plant Store", version: "1.0.0", license: { name: "MIT" } });
    expect(document.info.contact).toBeDefined();
    expect(document.info.description).toMatch(/exact 64-bit integers|exact signed 64-bit integer/);
    expect(document.info.description).toContain("must read them losslessly");
    expect(document.servers).toEqual([expect.objectContaining({ url: "/" })]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
  });

  it("writes the int64 bounds of every int64 schema digit for digit", () => {
    const int64 = [...schemasIn(document)].filter(([, schema]) => schema.format === "int64");
    expect(int64.length).toBeGreaterThanOrEqual(5);
    for (const [where, schema] of int64) expect(schema, where).toMatchObject({ type: "integer" });
    // Each int64 schema's bounds, as the file writes them (a double would print 9223372036854776000).
    const count = (literal: RegExp) => text.match(literal)?.length ?? 0;
    // Cursors (GET /plants/changes) start at 0; every other int64 spans the whole range.
    const cursors = int64.filter(([, schema]) => schema.minimum === 0).length;
    expect(count(/"minimum": -9223372036854775808\b/g)).toBe(int64.length - cursors);
    expect(count(/"maximum": 9223372036854775807\b/g)).toBe(int64.length);
    expect(text).not.toContain("922337203685477600");
  });

  it("gives every string a maxLength and every integer a format and bounds", () => {
    for (const [where, schema] of schemasIn(document)) {
      if (schema.type === "string" && schema.enum === undefined) expect(schema.maxLength, where).toBeTypeOf("number");
      if (schema.type === "integer") {
        expect(schema.format, where).toMatch(/^int(32|64)$/);
        expect(schema.minimum, where).toBeDefined();
        expect(schema.maximum, where).toBeDefined();
      }
    }
  });

  it("has every operation of the contract, each with an operationId, a summary and a defined tag", () => {
    const documented = operations(document);
    expect(documented.map(({ operation }) => operation.operationId).sort()).toEqual(
      Object.keys(plantStoreContract).sort(),
    );
    const tags = (document.tags as Json[]).map((tag) => tag.name);
    for (const { operation } of documented) {
      expect(operation.summary).toBeTruthy();
      for (const tag of operation.tags) expect(tags).toContain(tag);
    }
  });

  it("documents every status the server can answer, each with its headers, an example and its codes", () => {
    for (const { operation } of operations(document)) {
      const route = plantStoreContract[operation.operationId as keyof typeof plantStoreContract];
      const statuses = Object.keys(route.responses).sort();
      expect(Object.keys(operation.responses).sort()).toEqual(statuses);
      for (const status of ["400", "401", "403", "408", "429", "431", "500", "503"]) expect(statuses).toContain(status);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const where = `${operation.operationId} ${status}`;
        expect(response.headers["X-Request-Id"], where).toBeDefined();
        if (status === "429" || status === "503") expect(response.headers["Retry-After"], where).toBeDefined();
        if (status === "401" || status === "403") expect(response.headers["WWW-Authenticate"], where).toBeDefined();
        if (status === "200" && /^(get|update)Plant$/.test(operation.operationId as string)) {
          expect(response.headers.ETag, where).toBeDefined();
        }
        if (status === "204" || status === "304") continue;
        // The stream answers text/event-stream; every other body is JSON.
        const media = response.content["application/json"] ?? response.content["text/event-stream"];
        expect(media.example, where).toBeDefined();
        if (status.startsWith("2")) continue;
        expect(media.schema).toEqual({ $ref: "#/components/schemas/Error" });
        expect(ErrorBody.parse(media.example).error.toString().slice(0, 3), where).toBe(status);
        expect(response.description, where).toContain(String(media.example.error));
      }
    }
  });

  it("documents the headers of answers: Plant-Store-Outcome on creates, Link on pages", () => {
    expect(document.paths["/plants"].post.responses["200"].headers["Plant-Store-Outcome"].schema.enum).toEqual([
      "created",
      "replayed",
    ]);
    expect(document.paths["/plants"].get.responses["200"].headers.Link).toBeDefined();
    expect(document.paths["/plants"].get.responses["200"].headers.RateLimit).toBeDefined();
  });

  it("documents ETags and conditions: ETag on reads and edits, If-None-Match and 304 on GET, If-Match and 412 on PUT and DELETE", () => {
    const plant = document.paths["/plants/{id}"] as Json;
    const headerParameters = (operation: Json) =>
      (operation.parameters as Json[]).filter((parameter) => parameter.in === "header").map(({ name }) => name);
    expect(headerParameters(plant.get)).toEqual(["If-None-Match"]);
    expect(headerParameters(plant.put)).toEqual(["If-Match"]);
    expect(headerParameters(plant.delete)).toEqual(["If-Match"]);
    expect(plant.get.responses["304"].headers.ETag).toBeDefined();
    expect(plant.put.responses["200"].headers.ETag).toBeDefined();
    expect(plant.put.responses["412"].content["application/json"].example.error).toBe(ErrorCode.PRECONDITION_FAILED);
    expect(plant.delete.responses["412"]).toBeDefined();
    expect(plant.put.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/PlantUpdate",
    });
    // Every status the issue of the edit names, no fewer and no more.
    expect(Object.keys(plant.put.responses).sort()).toEqual(
      ["200", "400", "401", "403", "404", "408", "412", "413", "415", "429", "431", "500", "503"].sort(),
    );
  });

  it(`documents plant.created, plant.updated and plant.deleted under ${webhooksKey}, with their payloads and signature headers`, () => {
    const events = document[webhooksKey] as Json;
    expect(Object.keys(events).sort()).toEqual(["plant.created", "plant.deleted", "plant.updated"]);
    for (const [type, item] of Object.entries(events)) {
      const post = item.post as Json;
      const schemaName = post.requestBody.content["application/json"].schema.$ref.split("/").pop();
      expect(document.components.schemas[schemaName].properties.type.enum ?? [type]).toEqual([type]);
      expect(post.parameters.map((parameter: Json) => parameter.name)).toEqual([
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]);
    }
  });

  it("carries examples that the contract itself accepts", () => {
    const schemas = document.components.schemas as Json;
    const exampleOf = (schema: Json) => schema.example ?? schema.examples?.[0];
    expect(NewPlant.safeParse(exampleOf(schemas.NewPlant)).success).toBe(true);
    expect(Plant.safeParse(exampleOf(schemas.Plant)).success).toBe(true);
    expect(StoredPlant.safeParse(exampleOf(schemas.StoredPlant)).success).toBe(true);
    expect(PlantCreatedEvent.safeParse(exampleOf(schemas.PlantCreatedEvent)).success).toBe(true);
    expect(PlantDeletedEvent.safeParse(exampleOf(schemas.PlantDeletedEvent)).success).toBe(true);
    expect(PlantUpdatedEvent.safeParse(exampleOf(schemas.PlantUpdatedEvent)).success).toBe(true);
    expect(PlantUpdate.safeParse(exampleOf(schemas.PlantUpdate)).success).toBe(true);
  });

  it("lists every ErrorCode once in the catalogue of its description, with its HTTP status", () => {
    const rows = [...(document.info.description as string).matchAll(/^\| (\d+) \| (\d{3}) \| ([A-Z_]+) \|$/gm)];
    expect(rows.map(([, code, status, name]) => ({ code: Number(code), status: Number(status), name }))).toEqual(
      Object.entries(ErrorCode).map(([name, code]) => ({ code, status: Math.trunc(code / 100), name })),
    );
  });
});

describe("OpenAPI 3.1 specifics", () => {
  it("uses JSON Schema 2020-12: no nullable, examples arrays in schemas", () => {
    expect(v31.text).not.toContain('"nullable"');
    for (const [where, schema] of schemasIn(v31.document)) expect(schema.example, where).toBeUndefined();
    expect(v31.document.jsonSchemaDialect).toBe("https://spec.openapis.org/oas/3.1/dialect/base");
  });

  it("names each operation's scope in its security requirement (the 3.0 variant in the description)", () => {
    const scopes = Object.fromEntries(
      operations(v31.document).map(({ operation }) => [operation.operationId, operation.security]),
    );
    expect(scopes).toEqual({
      createPlant: [{ bearerAuth: ["plants:write"] }],
      streamPlantChanges: [{ bearerAuth: ["plants:read"] }],
      getPlant: [{ bearerAuth: ["plants:read"] }],
      listPlants: [{ bearerAuth: ["plants:read"] }],
      updatePlant: [{ bearerAuth: ["plants:write"] }],
      deletePlant: [{ bearerAuth: ["plants:write"] }],
    });
    for (const { operation } of operations(v30.document)) {
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      expect(operation.description).toMatch(/Needs the scope `plants:(read|write)`/);
    }
  });

  it("the 3.0 variant also passes swagger-parser", async () => {
    await expect(SwaggerParser.validate(JSON.parse(v30.text) as never)).resolves.toMatchObject({
      info: { title: "Plant Store" },
    });
  });
});

/** Runs a linter's CLI from this package's dev dependencies. */
function lint(command: string, args: string[]) {
  const run = spawnSync(`${packageDirectory}node_modules/.bin/${command}`, args, {
    cwd: packageDirectory,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the linters, on both documents", () => {
  // The linters are whole CLI processes (Spectral ~40 s on a loaded 2-core machine, once 95 s while the
  // server suites ran beside it): a generous deadline, not a speed claim.
  it("Spectral (spectral:oas + OWASP API security, .spectral.yaml) reports nothing, not even a hint", () => {
    const run = lint("spectral", ["lint", "openapi.json", "openapi-3.0.json", "--fail-severity", "hint", "-f", "text"]);
    expect(run.output).toContain("No results with a severity of 'hint' or higher found!");
    expect(run.status).toBe(0);
  }, 240_000);

  it("Redocly (recommended ruleset, redocly.yaml) reports no error and no warning", () => {
    const run = lint("redocly", ["lint", "openapi.json", "openapi-3.0.json", "--format", "stylish"]);
    // What follows its banner (a notice about future Node.js versions) is the lint report.
    const report = run.output.slice(run.output.indexOf("validating"));
    expect(report).not.toMatch(/warning|error/i);
    expect(run.output).toContain("Woohoo! Your API descriptions are valid.");
    expect(run.status).toBe(0);
  }, 240_000);
});
