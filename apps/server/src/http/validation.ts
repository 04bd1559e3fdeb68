import { ErrorCode } from "@plantstore/contract";
import type { RequestValidationError } from "@ts-rest/express";
import type { ZodError, ZodIssue } from "zod";
import { ApiError } from "./answer.js";

type Part = "path" | "query" | "header" | "body";

const unknownKey: Record<Exclude<Part, "body">, string> = {
  path: "is not a path parameter",
  query: "is not a query parameter here",
  header: "is not a header here",
};

/** A header as people write it (`If-Match`): Node hands them over in lower case. */
const headerName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

/** The schema of each operation's body (the contract's), as messages about the body name it. */
const BODY_SCHEMAS: Readonly<Record<string, string>> = { createPlant: "NewPlant", updatePlant: "PlantUpdate" };

export function bodySchemaName(operationId: string): string {
  return BODY_SCHEMAS[operationId] ?? "the body";
}

/** `schema` names the body's schema (NewPlant, PlantUpdate) in messages about the body. */
function describeIssue(issue: ZodIssue, part: Part, schema: string): string {
  if (issue.code === "unrecognized_keys") {
    const why = part === "body" ? `is not a field of ${schema}` : unknownKey[part];
    return issue.keys.map((key) => `${JSON.stringify(key).slice(1, -1)}: ${why}`).join("; ");
  }
  if (issue.path.length === 0) {
    if (part === "body" && issue.code === "invalid_type") {
      const article = issue.received === "array" ? "an " : "";
      return `body: must be a JSON object (${schema}), not ${article}${issue.received}`;
    }
    return `${part}: ${issue.message}`;
  }
  const where = part === "header" ? headerName(String(issue.path[0])) : issue.path.join(".");
  return `${where}: ${issue.message}`;
}

function describe(error: ZodError | null, part: Part, schema = ""): string[] {
  return error === null ? [] : error.issues.map((issue) => describeIssue(issue, part, schema));
}

/** The same refusal for an operation validated outside ts-rest (the change stream): its query and headers. */
export function parameterRefusal(query: ZodError | null, headers: ZodError | null): ApiError {
  return new ApiError(
    ErrorCode.INVALID_PARAMETER,
    [...describe(query, "query"), ...describe(headers, "header")].join("; "),
  );
}

/**
 * Step 5's refusal: the contract's schemas (applied by ts-rest to the path parameters, the query
 * and the body) found problems. One 400 lists every problem, each naming its field:
 * "id: must be an integer; name: is required". Parameters (path, query, headers) are
 * INVALID_PARAMETER, a body VALIDATION_FAILED; `bodySchema` names the body's schema.
 */
export function validationRefusal(error: RequestValidationError, bodySchema: string): ApiError {
  const parameters = [
    ...describe(error.pathParams, "path"),
    ...describe(error.query, "query"),
    ...describe(error.headers, "header"),
  ];
  if (parameters.length > 0) return new ApiError(ErrorCode.INVALID_PARAMETER, parameters.join("; "));
  const body = describe(error.body, "body", bodySchema);
  return new ApiError(ErrorCode.VALIDATION_FAILED, body.join("; ") || "the request is not valid");
}
