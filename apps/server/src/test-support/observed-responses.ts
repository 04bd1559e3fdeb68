/**
 * Every answer the HTTP suite observes from an operation of the API, checked against the committed
 * OpenAPI 3.1 document: its status must be documented for the operation, and its body must validate
 * against the documented schema. The tests' fetch records each answer (a vitest setup file,
 * `record-responses.ts`); this module's teardown (a vitest globalSetup) checks them all once the
 * suite is over, and fails the run with the list of any answer the document does not describe.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseExactJson } from "@plantstore/contract";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export const RECORDS_DIRECTORY = fileURLToPath(new URL("../../test-results/observed-responses/", import.meta.url));

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: string;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const documentPath = fileURLToPath(new URL("../../../../packages/contract/openapi.json", import.meta.url));

/** `/plants/7` → `/plants/{id}`: the document's path template a request path falls under. */
function templateOf(paths: Json, path: string): string | undefined {
  return Object.keys(paths).find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
}

/** Exact ids (bigints) as numbers: validation checks types and bounds, not digits. */
const asNumbers = (value: unknown): unknown =>
  typeof value === "bigint"
    ? Number(value)
    : Array.isArray(value)
      ? value.map(asNumbers)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asNumbers(item)]))
        : value;

/** What is wrong with each answer the document does not describe (an empty list: all are). */
export function undocumented(observed: readonly ObservedResponse[], document: Json = loadDocument()): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addFormat("int32", true).addFormat("int64", true);
  ajv.addSchema(document, "openapi");
  const problems = new Set<string>();
  for (const answer of observed) {
    const template = templateOf(document.paths, answer.path);
    const operation = template === undefined ? undefined : document.paths[template][answer.method.toLowerCase()];
    if (operation === undefined) continue; // not an operation of the API (a 404 path, a 405 method)
    const where = `${answer.method} ${template} → ${answer.status}`;
    const response = operation.responses[String(answer.status)] as Json | undefined;
    if (response === undefined) {
      problems.add(`${where}: status not documented`);
      continue;
    }
    const media = response.content?.["application/json"] as Json | undefined;
    if (media === undefined) {
      if (answer.body !== "") problems.add(`${where}: a body where the document has none`);
      continue;
    }
    if (!answer.contentType?.startsWith("application/json")) {
      problems.add(`${where}: Content-Type ${answer.contentType}, documented application/json`);
      continue;
    }
    const validate = ajv.compile({
      $ref: `openapi#/paths/${pointer(template!)}/${answer.method.toLowerCase()}/responses/${answer.status}/content/application~1json/schema`,
    });
    let body: unknown;
    try {
      body = asNumbers(parseExactJson(answer.body));
    } catch {
      problems.add(`${where}: the body is not JSON`);
      continue;
    }
    if (!validate(body)) problems.add(`${where}: ${ajv.errorsText(validate.errors)} in ${answer.body.slice(0, 200)}`);
  }
  return [...problems];
}

const pointer = (template: string) => template.replaceAll("~", "~0").replaceAll("/", "~1");

function loadDocument(): Json {
  return JSON.parse(readFileSync(documentPath, "utf8")) as Json;
}

export function readObserved(): ObservedResponse[] {
  let files: string[] = [];
  try {
    files = readdirSync(RECORDS_DIRECTORY);
  } catch {
    return [];
  }
  return files.flatMap((file) =>
    readFileSync(`${RECORDS_DIRECTORY}${file}`, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ObservedResponse),
  );
}

/** vitest globalSetup: a fresh record before the suite; the check after it. */
export default function setup(): () => void {
  rmSync(RECORDS_DIRECTORY, { recursive: true, force: true });
  mkdirSync(RECORDS_DIRECTORY, { recursive: true });
  return () => {
    const observed = readObserved();
    // A run of a few files (vitest run some.test.ts) checks what those observed.
    const problems = undocumented(observed);
    if (problems.length > 0) {
      throw new Error(
        `answers the OpenAPI 3.1 document (packages/contract/openapi.json) does not describe:\n${problems.join("\n")}`,
      );
    }
    console.log(`observed responses: ${observed.length} answers checked against openapi.json, all documented`);
  };
}
