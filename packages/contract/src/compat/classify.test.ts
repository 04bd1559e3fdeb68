import { describe, expect, it } from "vitest";
import { BREAKING_RULES, classifyChanges, type Rule } from "./classify.js";
import { gateFailure, releaseProblems } from "./gate.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A small OpenAPI 3.1 document with one of everything the rules look at: paths and operations,
 * parameters (query, path, header), a strict request body, responses with headers, components
 * reached through `$ref`, a webhook and security. Each case below changes a copy of it.
 */
function base(): Json {
  const text = (maxLength: number) => ({ type: "string", minLength: 1, maxLength });
  return {
    openapi: "3.1.0",
    info: { title: "Fixture", version: "1.0.0" },
    security: [{ bearer: [] }],
    paths: {
      "/things": {
        get: {
          operationId: "listThings",
          security: [{ bearer: ["things:read"] }],
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
            { name: "kind", in: "query", schema: { type: "string", enum: ["a", "b"] } },
          ],
          responses: {
            "200": {
              description: "A page",
              headers: { Link: { $ref: "#/components/headers/Link" } },
              content: {
                "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Thing" } } },
              },
            },
            "400": {
              description: "Bad",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
            },
          },
        },
        post: {
          operationId: "createThing",
          security: [{ bearer: ["things:write"] }],
          requestBody: {
            required: false,
            content: { "application/json": { schema: { $ref: "#/components/schemas/NewThing" } } },
          },
          responses: {
            "200": {
              description: "Made",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
            },
          },
        },
      },
      "/things/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
        get: {
          operationId: "getThing",
          parameters: [{ name: "If-None-Match", in: "header", schema: text(64) }],
          responses: {
            "200": {
              description: "The thing",
              headers: { ETag: { schema: text(64) } },
              content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
            },
            "404": {
              description: "None",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
            },
          },
        },
        delete: { operationId: "deleteThing", responses: { "204": { description: "Gone" } } },
      },
    },
    webhooks: {
      "thing.created": {
        post: {
          operationId: "thingCreated",
          security: [],
          parameters: [{ name: "webhook-id", in: "header", required: true, schema: text(64) }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/ThingEvent" } } },
          },
          responses: { "204": { description: "Acknowledged" } },
        },
      },
    },
    components: {
      headers: { Link: { schema: text(512) } },
      schemas: {
        NewThing: {
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: { name: text(16), tag: text(8), count: { type: "integer", minimum: 0, maximum: 10 } },
        },
        Thing: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "integer", format: "int64" },
            name: text(16),
            tag: text(8),
            state: { type: "string", enum: ["green", "dry"] },
          },
        },
        ThingEvent: {
          type: "object",
          required: ["type", "data"],
          properties: {
            type: { type: "string", enum: ["thing.created"] },
            data: { $ref: "#/components/schemas/Thing" },
          },
        },
        Error: { type: "object", required: ["error"], properties: { error: { type: "integer", format: "int32" } } },
      },
    },
  };
}

interface Case {
  name: string;
  rule: Rule;
  /** Where the difference is reported (a JSON pointer in the newer document, through `$ref`s). */
  pointer: string;
  change: (document: Json) => void;
}

const schemas = (document: Json) => document.components.schemas;
const listThings = (document: Json) => document.paths["/things"].get;
const THINGS = "#/paths/~1things";
const THING = "#/paths/~1things~1{id}";
const CREATE_BODY = `${THINGS}/post/requestBody/content/application~1json/schema`;
const GET_BODY = `${THING}/get/responses/200/content/application~1json/schema`;
const EVENT_BODY = "#/webhooks/thing.created/post/requestBody/content/application~1json/schema";

/** One fixture pair per breaking rule (and per form of it): each must be named and fail the gate. */
const BREAKING: Case[] = [
  { name: "a path removed", rule: "path-removed", pointer: THING, change: (d) => delete d.paths["/things/{id}"] },
  {
    name: "an operation removed",
    rule: "operation-removed",
    pointer: `${THING}/delete`,
    change: (d) => delete d.paths["/things/{id}"].delete,
  },
  {
    name: "a webhook event removed",
    rule: "webhook-removed",
    pointer: "#/webhooks/thing.created",
    change: (d) => delete d.webhooks["thing.created"],
  },
  {
    name: "a response status removed",
    rule: "response-status-removed",
    pointer: `${THING}/get/responses/404`,
    change: (d) => delete d.paths["/things/{id}"].get.responses["404"],
  },
  {
    name: "a response header removed",
    rule: "response-header-removed",
    pointer: `${THING}/get/responses/200/headers/ETag`,
    change: (d) => delete d.paths["/things/{id}"].get.responses["200"].headers.ETag,
  },
  {
    name: "a response media type removed",
    rule: "media-type-removed",
    pointer: `${THING}/get/responses/200/content/application~1json`,
    change: (d) =>
      (d.paths["/things/{id}"].get.responses["200"].content = {
        "text/plain": { schema: { type: "string", maxLength: 9 } },
      }),
  },
  {
    name: "a response field removed (in a component)",
    rule: "response-property-removed",
    pointer: `${GET_BODY}/properties/tag`,
    change: (d) => delete schemas(d).Thing.properties.tag,
  },
  {
    name: "a response field no longer required",
    rule: "response-property-newly-optional",
    pointer: `${GET_BODY}/properties/name`,
    change: (d) => (schemas(d).Thing.required = ["id"]),
  },
  {
    name: "a field of a strict request body removed",
    rule: "request-property-removed",
    pointer: `${CREATE_BODY}/properties/tag`,
    change: (d) => delete schemas(d).NewThing.properties.tag,
  },
  {
    name: "a request field newly required",
    rule: "request-property-newly-required",
    pointer: `${CREATE_BODY}/properties/tag`,
    change: (d) => schemas(d).NewThing.required.push("tag"),
  },
  {
    name: "a new required request field",
    rule: "request-property-newly-required",
    pointer: `${CREATE_BODY}/properties/color`,
    change: (d) => {
      schemas(d).NewThing.properties.color = { type: "string", maxLength: 9 };
      schemas(d).NewThing.required.push("color");
    },
  },
  {
    name: "a query parameter removed",
    rule: "parameter-removed",
    pointer: `${THINGS}/get/parameters/query/kind`,
    change: (d) => listThings(d).parameters.pop(),
  },
  {
    name: "a query parameter newly required",
    rule: "parameter-newly-required",
    pointer: `${THINGS}/get/parameters/query/limit`,
    change: (d) => (listThings(d).parameters[0].required = true),
  },
  {
    name: "a new required request header",
    rule: "parameter-newly-required",
    pointer: `${THINGS}/get/parameters/header/X-Tenant`,
    change: (d) =>
      listThings(d).parameters.push({
        name: "X-Tenant",
        in: "header",
        required: true,
        schema: { type: "string", maxLength: 9 },
      }),
  },
  {
    name: "a request body newly required",
    rule: "request-body-newly-required",
    pointer: `${THINGS}/post/requestBody`,
    change: (d) => (d.paths["/things"].post.requestBody.required = true),
  },
  {
    name: "a request field's type changed",
    rule: "type-changed",
    pointer: `${CREATE_BODY}/properties/count/type`,
    change: (d) => (schemas(d).NewThing.properties.count = { type: "string", maxLength: 2 }),
  },
  {
    name: "a response field may now be null",
    rule: "type-changed",
    pointer: `${GET_BODY}/properties/name/type`,
    change: (d) => (schemas(d).Thing.properties.name.type = ["string", "null"]),
  },
  {
    name: "a request maxLength lowered",
    rule: "request-constraint-tightened",
    pointer: `${CREATE_BODY}/properties/name/maxLength`,
    change: (d) => (schemas(d).NewThing.properties.name.maxLength = 8),
  },
  {
    name: "a request minimum raised",
    rule: "request-constraint-tightened",
    pointer: `${CREATE_BODY}/properties/count/minimum`,
    change: (d) => (schemas(d).NewThing.properties.count.minimum = 1),
  },
  {
    name: "a request pattern added",
    rule: "request-constraint-tightened",
    pointer: `${CREATE_BODY}/properties/name/pattern`,
    change: (d) => (schemas(d).NewThing.properties.name.pattern = "^[a-z]+$"),
  },
  {
    name: "a request enum value removed",
    rule: "request-constraint-tightened",
    pointer: `${THINGS}/get/parameters/query/kind/schema/enum`,
    change: (d) => (listThings(d).parameters[1].schema.enum = ["a"]),
  },
  {
    name: "a request query maximum lowered",
    rule: "request-constraint-tightened",
    pointer: `${THINGS}/get/parameters/query/limit/schema/maximum`,
    change: (d) => (listThings(d).parameters[0].schema.maximum = 50),
  },
  {
    name: "a response maxLength raised",
    rule: "response-constraint-loosened",
    pointer: `${GET_BODY}/properties/name/maxLength`,
    change: (d) => (schemas(d).Thing.properties.name.maxLength = 32),
  },
  {
    name: "a response enum value added",
    rule: "response-constraint-loosened",
    pointer: `${GET_BODY}/properties/state/enum`,
    change: (d) => schemas(d).Thing.properties.state.enum.push("wilted"),
  },
  {
    name: "a response header (component) loosened",
    rule: "response-constraint-loosened",
    pointer: `${THINGS}/get/responses/200/headers/Link/schema/maxLength`,
    change: (d) => (d.components.headers.Link.schema.maxLength = 1024),
  },
  {
    name: "a webhook payload field removed",
    rule: "response-property-removed",
    pointer: `${EVENT_BODY}/properties/data/properties/tag`,
    change: (d) => delete schemas(d).Thing.properties.tag,
  },
  {
    name: "a webhook payload constraint loosened",
    rule: "response-constraint-loosened",
    pointer: `${EVENT_BODY}/properties/type/enum`,
    change: (d) => schemas(d).ThingEvent.properties.type.enum.push("thing.made"),
  },
  {
    name: "a webhook header removed",
    rule: "parameter-removed",
    pointer: "#/webhooks/thing.created/post/parameters/header/webhook-id",
    change: (d) => (d.webhooks["thing.created"].post.parameters = []),
  },
  {
    name: "a scope added to a security requirement",
    rule: "security-requirement-added",
    pointer: `${THINGS}/get/security`,
    change: (d) => (listThings(d).security = [{ bearer: ["things:read", "things:admin"] }]),
  },
  {
    name: "security on an operation that had none",
    rule: "security-requirement-added",
    pointer: `${THING}/delete/security`,
    change: (d) => (d.paths["/things/{id}"].delete.security = [{ apiKey: [] }]),
  },
];

/** Changes the rules must not flag as breaking (each still counts as a change). */
const NOT_BREAKING: Case[] = [
  {
    name: "a new optional request field",
    rule: "property-added",
    pointer: `${CREATE_BODY}/properties/color`,
    change: (d) => (schemas(d).NewThing.properties.color = { type: "string", maxLength: 9 }),
  },
  {
    name: "a new response field",
    rule: "property-added",
    pointer: `${GET_BODY}/properties/height`,
    change: (d) => (schemas(d).Thing.properties.height = { type: "integer", format: "int32", minimum: 0, maximum: 9 }),
  },
  {
    name: "a new operation",
    rule: "operation-added",
    pointer: `${THING}/put`,
    change: (d) =>
      (d.paths["/things/{id}"].put = { operationId: "editThing", responses: { "204": { description: "Done" } } }),
  },
  {
    name: "a new path",
    rule: "path-added",
    pointer: "#/paths/~1things~1changes",
    change: (d) =>
      (d.paths["/things/changes"] = {
        get: { operationId: "changes", responses: { "200": { description: "Events" } } },
      }),
  },
  {
    name: "a new webhook event",
    rule: "webhook-added",
    pointer: "#/webhooks/thing.deleted",
    change: (d) => (d.webhooks["thing.deleted"] = d.webhooks["thing.created"]),
  },
  {
    name: "a loosened request constraint",
    rule: "request-constraint-loosened",
    pointer: `${CREATE_BODY}/properties/name/maxLength`,
    change: (d) => (schemas(d).NewThing.properties.name.maxLength = 64),
  },
  {
    name: "a request enum value added",
    rule: "request-constraint-loosened",
    pointer: `${THINGS}/get/parameters/query/kind/schema/enum`,
    change: (d) => listThings(d).parameters[1].schema.enum.push("c"),
  },
  {
    name: "a new optional query parameter",
    rule: "parameter-added",
    pointer: `${THINGS}/get/parameters/query/name`,
    change: (d) =>
      listThings(d).parameters.push({ name: "name", in: "query", schema: { type: "string", maxLength: 9 } }),
  },
  {
    name: "a tightened response constraint",
    rule: "response-constraint-tightened",
    pointer: `${GET_BODY}/properties/name/maxLength`,
    change: (d) => (schemas(d).Thing.properties.name.maxLength = 8),
  },
  {
    name: "a new response status",
    rule: "response-status-added",
    pointer: `${THING}/get/responses/304`,
    change: (d) => (d.paths["/things/{id}"].get.responses["304"] = { description: "Not modified" }),
  },
  {
    name: "a new response header",
    rule: "response-header-added",
    pointer: `${THING}/delete/responses/204/headers/API-Version`,
    change: (d) =>
      (d.paths["/things/{id}"].delete.responses["204"].headers = {
        "API-Version": { schema: { type: "string", maxLength: 9 } },
      }),
  },
  {
    name: "an operation deprecated",
    rule: "deprecated",
    pointer: `${THING}/delete/deprecated`,
    change: (d) => (d.paths["/things/{id}"].delete.deprecated = true),
  },
];

function pair(change: Case["change"]): [Json, Json] {
  const before = base();
  const after = base();
  change(after);
  return [before, after];
}

const changelog = "## 2.0.0\n\n## 1.1.0\n\n## 1.0.1\n";

describe("the breaking-change classifier", () => {
  it("finds nothing between a document and itself", () => {
    expect(classifyChanges(base(), base())).toEqual([]);
  });

  it("does not flag a new alternative way to authenticate", () => {
    const after = base();
    listThings(after).security.push({ apiKey: [] });
    expect(classifyChanges(base(), after)).toEqual([]);
  });

  it("has a fixture for every breaking rule", () => {
    expect(new Set(BREAKING.map(({ rule }) => rule))).toEqual(new Set(Object.keys(BREAKING_RULES)));
  });

  describe.each(BREAKING)("flags $name as $rule", ({ rule, pointer, change }) => {
    const [before, after] = pair(change);

    it("at its pointer, as breaking", () => {
      expect(classifyChanges(before, after)).toContainEqual(expect.objectContaining({ rule, pointer, breaking: true }));
    });

    it("and the gate refuses it in a minor version, naming the pointer and rule; a major version passes", () => {
      const problems = releaseProblems(
        { version: "1.0.0", document: before },
        { version: "1.1.0", document: after },
        changelog,
      );
      expect(problems.join("\n")).toContain("breaking change(s) need a new major version (2.0.0)");
      const failure = gateFailure(
        [{ version: "1.0.0", document: before }],
        { version: "1.1.0", document: after },
        changelog,
        () => false,
      );
      expect(failure).toContain(`BREAKING  ${pointer}  [${rule}]`);
      expect(failure).toContain('set API_VERSION to "2.0.0"');
      expect(
        releaseProblems({ version: "1.0.0", document: before }, { version: "2.0.0", document: after }, changelog),
      ).toEqual([]);
    });
  });

  describe.each(NOT_BREAKING)("does not flag $name as breaking", ({ rule, pointer, change }) => {
    const [before, after] = pair(change);

    it(`reports it as ${rule}, and nothing as breaking`, () => {
      const differences = classifyChanges(before, after);
      expect(differences).toContainEqual(expect.objectContaining({ rule, pointer, breaking: false }));
      expect(differences.filter((difference) => difference.breaking)).toEqual([]);
    });

    it("and a minor version passes the gate", () => {
      expect(
        releaseProblems({ version: "1.0.0", document: before }, { version: "1.1.0", document: after }, changelog),
      ).toEqual([]);
    });
  });
});

describe("the gate", () => {
  const [before, after] = pair(NOT_BREAKING[7]!.change);
  const released = [{ version: "1.0.0", document: before }];

  it("passes an unchanged document", () => {
    expect(gateFailure(released, { version: "1.0.0", document: base() }, changelog, () => true)).toBeUndefined();
  });

  it("refuses a change without a new version, saying which version and what to run", () => {
    const failure = gateFailure(released, { version: "1.0.0", document: after }, changelog, () => false)!;
    expect(failure).toContain("additive changes only: a new MINOR version");
    expect(failure).toContain(`ok        ${THINGS}/get/parameters/query/name  [parameter-added]`);
    expect(failure).toContain("info.version is still 1.0.0");
    expect(failure).toContain('set API_VERSION to "1.1.0" in packages/contract/src/version.ts');
    expect(failure).toContain('add "## 1.1.0 — <date>" at the top of docs/api-changes.md');
    expect(failure).toContain(
      "pnpm --filter @plantstore/contract release (writes packages/contract/released/1.1.0.json)",
    );
  });

  it("refuses a new version without its changelog entry, and one not yet released", () => {
    const failure = gateFailure(released, { version: "1.2.0", document: after }, "## 1.0.0\n", () => false)!;
    expect(failure).toContain('docs/api-changes.md has no "## 1.2.0" entry');
    expect(failure).toContain("released/1.2.0.json does not exist yet");
    // The version already chosen is enough: the steps keep it.
    expect(failure).toContain('set API_VERSION to "1.2.0"');
  });

  it("asks for a patch version when only wording changed", () => {
    const reworded = base();
    reworded.paths["/things"].get.description = "Lists things.";
    expect(classifyChanges(base(), reworded)).toEqual([]);
    const failure = gateFailure(released, { version: "1.0.0", document: reworded }, changelog, () => false)!;
    expect(failure).toContain("wording only: a new PATCH version");
    expect(failure).toContain("#/paths/~1things/get/description");
    expect(failure).toContain('set API_VERSION to "1.0.1"');
  });

  it("refuses a version that does not grow", () => {
    expect(
      releaseProblems({ version: "1.1.0", document: before }, { version: "1.0.9", document: after }, "## 1.0.9"),
    ).toEqual(["info.version 1.0.9 is not greater than the released 1.1.0"]);
  });
});
