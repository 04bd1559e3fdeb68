import SwaggerParser from "@apidevtools/swagger-parser";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenAPIObject, OperationObject, ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts";
import { describe, expect, it } from "vitest";
import { plantStoreContract } from "./contract.js";
import { ErrorBody, ErrorCode } from "./error.js";
import { generateOpenApiDocument, serializeOpenApiDocument } from "./openapi.js";
import { NewPlant, Plant } from "./plant.js";

// Every check reads the committed file: it is what external consumers get.
const committedPath = fileURLToPath(new URL("../openapi.json", import.meta.url));
const committedText = readFileSync(committedPath, "utf8");
const committed = JSON.parse(committedText) as OpenAPIObject;

const REGENERATE = "`pnpm openapi` at the repository root (it builds the contract, then rewrites the file)";
const CONTRACT_STATUSES = ["200", "400", "401", "403", "408", "409", "413", "415", "429", "500", "503"];

function schemaNamed(name: string): SchemaObject {
  const schema = committed.components?.schemas?.[name];
  if (schema === undefined || "$ref" in schema) throw new Error(`components.schemas.${name} is missing or a $ref`);
  return schema;
}

function propertyOf(schema: SchemaObject, name: string): SchemaObject {
  const property = schema.properties?.[name];
  if (property === undefined || "$ref" in property) throw new Error(`property ${name} is missing or a $ref`);
  return property;
}

function createPlantOperation(): OperationObject {
  const operation = committed.paths["/plants"]?.post as OperationObject | undefined;
  if (operation === undefined) throw new Error("POST /plants is missing");
  return operation;
}

function jsonSchemaOfResponse(status: string): SchemaObject | ReferenceObject | undefined {
  const response = createPlantOperation().responses[status] as ResponseObject | undefined;
  return response?.content?.["application/json"]?.schema;
}

describe("the committed openapi.json", () => {
  it("is exactly what the contract generates", () => {
    const generated = serializeOpenApiDocument(generateOpenApiDocument());
    expect(committedText, `packages/contract/openapi.json is out of date; regenerate it with: ${REGENERATE}`).toBe(
      generated,
    );
  });

  it("passes swagger-parser's validation (OpenAPI 3.0 schema and spec rules)", async () => {
    await expect(SwaggerParser.validate(committedPath)).resolves.toMatchObject({ info: { title: "Plant Store" } });
  });

  it("is checked by a validator that does reject a broken document", async () => {
    const broken = structuredClone(committed);
    delete broken.components?.schemas?.["Error"];
    const directory = mkdtempSync(join(tmpdir(), "plantstore-openapi-"));
    try {
      const brokenPath = join(directory, "openapi.json");
      writeFileSync(brokenPath, JSON.stringify(broken));
      await expect(SwaggerParser.validate(brokenPath)).rejects.toThrow(/#\/components\/schemas\/Error/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("is OpenAPI 3.0, version 1.0.0, MIT licensed", () => {
    expect(committed.openapi).toMatch(/^3\.0\.\d+$/);
    expect(committed.info.title).toBe("Plant Store");
    expect(committed.info.version).toBe("1.0.0");
    expect(committed.info.license?.name).toBe("MIT");
  });
});

describe("POST /plants in the document", () => {
  it("has an operationId and a required NewPlant body", () => {
    const operation = createPlantOperation();
    expect(operation.operationId).toBe("createPlant");
    const body = operation.requestBody as { required?: boolean; content: Record<string, { schema?: unknown }> };
    expect(body.required).toBe(true);
    expect(body.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/NewPlant" });
  });

  it("is secured by the bearerAuth scheme (HTTP bearer)", () => {
    expect(committed.components?.securitySchemes?.["bearerAuth"]).toMatchObject({ type: "http", scheme: "bearer" });
    expect(createPlantOperation().security).toEqual([{ bearerAuth: [] }]);
  });

  it("documents every status of the contract, and only those", () => {
    expect(Object.keys(createPlantOperation().responses).sort()).toEqual(CONTRACT_STATUSES);
    expect(Object.keys(plantStoreContract.createPlant.responses).sort()).toEqual(CONTRACT_STATUSES);
  });

  it.each(CONTRACT_STATUSES.filter((status) => status !== "200"))("answers %s with the Error schema", (status) => {
    expect(jsonSchemaOfResponse(status)).toEqual({ $ref: "#/components/schemas/Error" });
    expect((createPlantOperation().responses[status] as ResponseObject).description).not.toBe(status);
  });

  it("answers 200 with the Plant schema", () => {
    expect(jsonSchemaOfResponse("200")).toEqual({ $ref: "#/components/schemas/Plant" });
  });
});

describe("the schemas in the document", () => {
  it("NewPlant: id is a required int64 integer, unknown fields are refused, limits and pattern are stated", () => {
    const newPlant = schemaNamed("NewPlant");
    expect(newPlant.type).toBe("object");
    expect(newPlant.required).toEqual(["id", "name"]);
    expect(newPlant.additionalProperties).toBe(false);
    expect(propertyOf(newPlant, "id")).toMatchObject({ type: "integer", format: "int64" });
    expect(propertyOf(newPlant, "id").nullable).toBeUndefined();
    expect(propertyOf(newPlant, "name")).toMatchObject({ type: "string", minLength: 1, maxLength: 256 });
    expect(propertyOf(newPlant, "tag")).toMatchObject({ type: "string", minLength: 1, maxLength: 64 });
    expect(propertyOf(newPlant, "name").pattern).toBeDefined();
    expect(propertyOf(newPlant, "tag").pattern).toBeDefined();
  });

  it("the name pattern refuses control characters and allows ordinary text", () => {
    const pattern = new RegExp(propertyOf(schemaNamed("NewPlant"), "name").pattern ?? "");
    expect(pattern.test("Monstera deliciosa 🌿")).toBe(true);
    expect(pattern.test("Fe\nrn")).toBe(false);
    expect(pattern.test("Fe\u009Frn")).toBe(false);
  });

  it("Plant has name and tag, and no id", () => {
    const plant = schemaNamed("Plant");
    expect(Object.keys(plant.properties ?? {})).toEqual(["name", "tag"]);
    expect(plant.required).toEqual(["name"]);
  });

  it("Error has a required int32 `error` and a required string `message`", () => {
    const error = schemaNamed("Error");
    expect(error.required).toEqual(["error", "message"]);
    expect(propertyOf(error, "error")).toMatchObject({ type: "integer", format: "int32" });
    expect(propertyOf(error, "message")).toMatchObject({ type: "string" });
  });

  it("carries examples that the contract itself accepts", () => {
    const newPlant = schemaNamed("NewPlant");
    expect(NewPlant.safeParse(newPlant.example).success).toBe(true);
    expect(Plant.safeParse(schemaNamed("Plant").example).success).toBe(true);
    const errorExample = {
      error: propertyOf(schemaNamed("Error"), "error").example,
      message: propertyOf(schemaNamed("Error"), "message").example,
    };
    expect(ErrorBody.safeParse(errorExample).success).toBe(true);
    expect(Object.values(ErrorCode)).toContain(errorExample.error);
    for (const field of ["id", "name", "tag"]) expect(propertyOf(newPlant, field).example).toBeDefined();
  });
});

describe("the error catalogue in the document's description", () => {
  function catalogueRows(): Array<{ code: number; status: number; name: string }> {
    const rows = (committed.info.description ?? "").matchAll(/^\| (\d+) \| (\d{3}) \| ([A-Z_]+) \|$/gm);
    return [...rows].map(([, code, status, name]) => ({
      code: Number(code),
      status: Number(status),
      name: name ?? "",
    }));
  }

  it("lists every ErrorCode once, with the HTTP status it is sent with", () => {
    const expected = Object.entries(ErrorCode).map(([name, code]) => ({
      code,
      status: Number(String(code).slice(0, 3)),
      name,
    }));
    expect(catalogueRows()).toEqual(expected);
  });
});
