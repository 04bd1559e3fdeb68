import type { ZodError, ZodIssue } from "zod";

function describeIssue(issue: ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${JSON.stringify(key).slice(1, -1)}: is not a field of NewPlant`).join("; ");
  }
  if (issue.path.length === 0) {
    if (issue.code === "invalid_type") {
      const article = issue.received === "array" ? "an " : "";
      return `body: must be a JSON object (NewPlant), not ${article}${issue.received}`;
    }
    return `body: ${issue.message}`;
  }
  return `${issue.path.join(".")}: ${issue.message}`;
}

/** "id: must be an integer; name: is required": every problem, each naming its field. */
export function validationMessage(error: ZodError): string {
  return error.issues.map(describeIssue).join("; ");
}
