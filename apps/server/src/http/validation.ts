import { ErrorCode } from "@plantstore/contract";
import type { RequestValidationError } from "@ts-rest/express";
import type { ZodError, ZodIssue } from "zod";
import { ApiError } from "./answer.js";

type Part = "path" | "query" | "body";

const unknownKey: Record<Part, string> = {
  path: "is not a path parameter",
  query: "is not a query parameter here",
  body: "is not a field of NewPlant",
};

function describeIssue(issue: ZodIssue, part: Part): string {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${JSON.stringify(key).slice(1, -1)}: ${unknownKey[part]}`).join("; ");
  }
  if (issue.path.length === 0) {
    if (part === "body" && issue.code === "invalid_type") {
      const article = issue.received === "array" ? "an " : "";
      return `body: must be a JSON object (NewPlant), not ${article}${issue.received}`;
    }
    return `${part}: ${issue.message}`;
  }
  return `${issue.path.join(".")}: ${issue.message}`;
}

function describe(error: ZodError | null, part: Part): string[] {
  return error === null ? [] : error.issues.map((issue) => describeIssue(issue, part));
}

/**
 * Step 5's refusal: the contract's schemas (applied by ts-rest to the path parameters, the query
 * and the body) found problems. One 400 lists every problem, each naming its field:
 * "id: must be an integer; name: is required". Parameters are INVALID_PARAMETER, a body
 * VALIDATION_FAILED.
 */
export function validationRefusal(error: RequestValidationError): ApiError {
  const parameters = [...describe(error.pathParams, "path"), ...describe(error.query, "query")];
  if (parameters.length > 0) return new ApiError(ErrorCode.INVALID_PARAMETER, parameters.join("; "));
  const body = describe(error.body, "body");
  return new ApiError(ErrorCode.VALIDATION_FAILED, body.join("; ") || "the request is not valid");
}
