import type { OpenApiZodAny } from "@anatine/zod-openapi";
import { openApiMeta } from "./openapi-meta.js";

/**
 * Deprecation: how the contract says that an operation, a query parameter or a response field is
 * going away (docs/api.md, "Versioning and deprecation"). The OpenAPI documents mark it
 * `deprecated: true` with `x-deprecated-since`, `x-sunset` and `x-replacement`; the server answers
 * a deprecated operation with `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and
 * `Link: <…>; rel="deprecation"`; the typed client warns once per process and operation.
 */
export interface Deprecation {
  /** The day it was deprecated (`YYYY-MM-DD`, UTC midnight): the Deprecation header's date. */
  readonly since: string;
  /** The day it may be removed (`YYYY-MM-DD`), at least MIN_SUNSET_MONTHS after `since`: the Sunset header. */
  readonly sunset?: string;
  /** What to use instead, in a consumer's words (`GET /plants/changes`). */
  readonly replacement: string;
  /**
   * Where the deprecation is explained: the Link rel="deprecation" target (a URL, or a path on the
   * server). By default the operation on the server's docs page, which shows it deprecated with
   * these details.
   */
  readonly link?: string;
}

/** A deprecated operation lives at least this long between its Deprecation and its Sunset. */
export const MIN_SUNSET_MONTHS = 6;

/** The operation on the docs page (Swagger UI's deep link: `#/<tag>/<operationId>`; every operation's tag is `plants`). */
export function docsLinkOf(operationId: string): string {
  return `/docs#/plants/${operationId}`;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayOf(text: string, what: string): Date {
  const match = DAY.exec(text);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (date === undefined || date.toISOString().slice(0, 10) !== text)
    throw new Error(`${what}: "${text}" is not a YYYY-MM-DD day`);
  return date;
}

/**
 * A deprecation, checked: real days, a replacement, and a sunset no sooner than MIN_SUNSET_MONTHS
 * after it. Throws when the contract is loaded, so a wrong one never ships.
 */
export function deprecation(details: Deprecation): Deprecation {
  const since = dayOf(details.since, "deprecation since");
  if (details.replacement.trim() === "") throw new Error("a deprecation names its replacement");
  if (details.sunset !== undefined) {
    const earliest = new Date(since);
    earliest.setUTCMonth(earliest.getUTCMonth() + MIN_SUNSET_MONTHS);
    if (dayOf(details.sunset, "deprecation sunset") < earliest) {
      throw new Error(`a sunset comes at least ${MIN_SUNSET_MONTHS} months after the deprecation (${details.since})`);
    }
  }
  return details;
}

/**
 * The headers of every answer to a deprecated operation, as `[name, value, …]`:
 * `Deprecation: @<unix seconds>` (RFC 9745, a structured-field date), `Sunset: <HTTP-date>`
 * (RFC 8594) when a removal day is set, and `Link: <…>; rel="deprecation"`.
 */
export function deprecationHeaders(details: Deprecation, operationId: string): string[] {
  const since = dayOf(details.since, "deprecation since");
  return [
    "Deprecation",
    `@${since.getTime() / 1000}`,
    ...(details.sunset === undefined ? [] : ["Sunset", dayOf(details.sunset, "deprecation sunset").toUTCString()]),
    "Link",
    `<${details.link ?? docsLinkOf(operationId)}>; rel="deprecation"`,
  ];
}

/** What the OpenAPI documents say of something deprecated: the flag and its details as extensions. */
export function deprecationExtensions(details: Deprecation): Record<string, unknown> {
  return {
    deprecated: true,
    "x-deprecated-since": details.since,
    ...(details.sunset === undefined ? {} : { "x-sunset": details.sunset }),
    "x-replacement": details.replacement,
  };
}

/** The sentence a deprecated thing's description ends with. */
export function deprecationNote(details: Deprecation): string {
  const removal = details.sunset === undefined ? "" : ` and may be removed on or after ${details.sunset}`;
  return `Deprecated since ${details.since}${removal}: use ${details.replacement} instead.`;
}

/**
 * A copy of a query parameter's or a body field's schema, marked deprecated (the documents carry
 * it; a query parameter's moves up to the parameter). The schema itself is left as it is: it may
 * be shared. Operations are deprecated in their route metadata (`deprecated: deprecation({...})`).
 */
export function deprecatedSchema<T extends OpenApiZodAny>(schema: T, details: Deprecation): T {
  // zod's describe() makes a new schema of the same kind and definition, without our metadata.
  const copy = schema.describe(schema.description as string);
  const description = schema.metaOpenApi?.description;
  return openApiMeta(copy, {
    ...schema.metaOpenApi,
    ...(deprecationExtensions(deprecation(details)) as { deprecated: true }),
    description:
      description === undefined ? deprecationNote(details) : `${String(description)} ${deprecationNote(details)}`,
  });
}
