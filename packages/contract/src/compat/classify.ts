/**
 * The breaking-change classifier: compares two OpenAPI 3.1 documents (a released one and the one the
 * contract emits now) and names every difference a consumer can feel, each with its JSON pointer
 * and its rule. Written here because no OpenAPI diff library on the npm registry handles 3.1 and
 * `webhooks` without downloading a binary: openapi-diff (Atlassian) reads Swagger 2 and OpenAPI 3.0
 * only, without webhooks; oasdiff's npm wrappers download a Go binary at install. The rules are
 * stated in docs/api.md, "Versioning and deprecation".
 *
 * Direction decides what breaks. What a consumer *sends* (request bodies, parameters, and its
 * answers to webhooks) the server validates: tightening it breaks senders. What a consumer
 * *receives* (responses, and webhook deliveries: the payload and its headers) the consumer
 * validates: removing from it, or loosening it, breaks readers.
 */

type Json = Record<string, unknown>;

/** Whether the consumer sends this part (the server validates it) or receives it (the consumer does). */
type Direction = "sent" | "received";

export const BREAKING_RULES = {
  "path-removed": "a path was removed",
  "operation-removed": "an operation was removed",
  "webhook-removed": "a webhook event was removed",
  "response-status-removed": "a response status was removed",
  "response-header-removed": "a response header was removed",
  "media-type-removed": "a media type was removed",
  "response-property-removed": "a field of a received body was removed",
  "response-property-newly-optional": "a field of a received body is no longer always present",
  "request-property-removed": "a field of a sent body that refuses unknown fields was removed",
  "request-property-newly-required": "a field of a sent body is newly required",
  "parameter-removed": "a parameter or header was removed",
  "parameter-newly-required": "a parameter or header is newly required",
  "request-body-newly-required": "the request body is newly required",
  "type-changed": "a type was changed",
  "request-constraint-tightened": "a constraint on what the consumer sends was tightened",
  "response-constraint-loosened": "a constraint on what the consumer receives was loosened",
  "security-requirement-added": "a security requirement (or scope) was added",
} as const;

export const NON_BREAKING_RULES = {
  "path-added": "a path was added",
  "operation-added": "an operation was added",
  "webhook-added": "a webhook event was added",
  "response-status-added": "a response status was added",
  "response-header-added": "a response header was added",
  "property-added": "an optional field was added (or a field to a received body)",
  "parameter-added": "an optional parameter or header was added",
  "request-constraint-loosened": "a constraint on what the consumer sends was loosened",
  "response-constraint-tightened": "a constraint on what the consumer receives was tightened",
  deprecated: "something was marked deprecated",
  "other-change": "wording, examples or another change that affects no consumer's code",
} as const;

export type BreakingRule = keyof typeof BREAKING_RULES;
export type NonBreakingRule = keyof typeof NON_BREAKING_RULES;
export type Rule = BreakingRule | NonBreakingRule;

export interface Difference {
  /** Where, in the newer document (in the older one for what was removed); through `$ref`s, the path that uses them. */
  pointer: string;
  rule: Rule;
  breaking: boolean;
  /** The detail: which keyword, value or name. */
  detail: string;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** A JSON pointer segment (RFC 6901). */
const segment = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const at = (pointer: string, ...keys: string[]) => `${pointer}/${keys.map(segment).join("/")}`;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Follows `$ref: "#/…"` inside the document (repeatedly: a reference may point at a reference). */
function resolve(document: Json, value: unknown): unknown {
  for (let hops = 0; isObject(value) && typeof value.$ref === "string" && hops < 32; hops++) {
    const ref = value.$ref;
    if (!ref.startsWith("#/")) return value;
    let target: unknown = document;
    for (const key of ref.slice(2).split("/")) {
      target = isObject(target) ? target[key.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
    }
    value = target;
  }
  return value;
}

/** Numbers from either reader (int64 bounds arrive as bigints from the exact reader). */
function compare(a: unknown, b: unknown): number {
  if (typeof a === "bigint" || typeof b === "bigint") {
    const big = (value: unknown) =>
      Number.isInteger(value) || typeof value === "bigint" ? BigInt(value as number) : undefined;
    const [x, y] = [big(a), big(b)];
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  }
  return Number(a) - Number(b);
}

const stable = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `${item}n` : item));

/** The JSON types a schema allows (`type` as a string or a list); undefined when it says none. */
function typesOf(schema: Json): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  return undefined;
}

/** Keywords that bound from above or below: lowering an upper bound tightens, raising a lower one does. */
const UPPER_BOUNDS = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"] as const;
const LOWER_BOUNDS = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"] as const;
/** Keywords whose any change (or addition) tightens, and whose removal loosens. */
const EXACT_KEYWORDS = ["pattern", "format", "multipleOf", "const"] as const;

class Comparison {
  readonly differences: Difference[] = [];
  /** Schema pairs already being compared (a recursive schema is compared once). */
  private readonly visiting = new Set<string>();

  constructor(
    private readonly before: Json,
    private readonly after: Json,
  ) {}

  private report(pointer: string, rule: Rule, detail: string): void {
    this.differences.push({ pointer, rule, breaking: rule in BREAKING_RULES, detail });
  }

  run(): void {
    const pathsBefore = (this.before.paths ?? {}) as Json;
    const pathsAfter = (this.after.paths ?? {}) as Json;
    for (const path of keysOf(pathsBefore, pathsAfter)) {
      const pointer = at("#/paths", path);
      if (!(path in pathsAfter)) this.report(pointer, "path-removed", path);
      else if (!(path in pathsBefore)) this.report(pointer, "path-added", path);
      else this.pathItem(pointer, pathsBefore[path], pathsAfter[path], "operation");
    }
    const hooksBefore = (this.before.webhooks ?? {}) as Json;
    const hooksAfter = (this.after.webhooks ?? {}) as Json;
    for (const event of keysOf(hooksBefore, hooksAfter)) {
      const pointer = at("#/webhooks", event);
      if (!(event in hooksAfter)) this.report(pointer, "webhook-removed", event);
      else if (!(event in hooksBefore)) this.report(pointer, "webhook-added", event);
      else this.pathItem(pointer, hooksBefore[event], hooksAfter[event], "webhook");
    }
  }

  private pathItem(pointer: string, before: unknown, after: unknown, kind: "operation" | "webhook"): void {
    const [itemBefore, itemAfter] = [this.old(before), this.new(after)];
    for (const method of METHODS) {
      const [operationBefore, operationAfter] = [itemBefore[method], itemAfter[method]];
      if (operationBefore === undefined && operationAfter === undefined) continue;
      const where = at(pointer, method);
      if (operationAfter === undefined)
        this.report(where, kind === "webhook" ? "webhook-removed" : "operation-removed", method.toUpperCase());
      else if (operationBefore === undefined)
        this.report(where, kind === "webhook" ? "webhook-added" : "operation-added", method.toUpperCase());
      else {
        // A webhook reverses the roles: the consumer receives the request and sends the response.
        const [request, response]: [Direction, Direction] =
          kind === "webhook" ? ["received", "sent"] : ["sent", "received"];
        this.operation(
          where,
          itemBefore,
          itemAfter,
          this.old(operationBefore),
          this.new(operationAfter),
          request,
          response,
        );
      }
    }
  }

  private operation(
    pointer: string,
    itemBefore: Json,
    itemAfter: Json,
    before: Json,
    after: Json,
    request: Direction,
    response: Direction,
  ): void {
    if (after.deprecated === true && before.deprecated !== true)
      this.report(at(pointer, "deprecated"), "deprecated", "the operation");
    const parametersBefore = [...this.list(itemBefore.parameters, "old"), ...this.list(before.parameters, "old")];
    const parametersAfter = [...this.list(itemAfter.parameters, "new"), ...this.list(after.parameters, "new")];
    this.parameters(pointer, parametersBefore, parametersAfter, request);
    this.requestBody(at(pointer, "requestBody"), before.requestBody, after.requestBody, request);
    this.responses(
      at(pointer, "responses"),
      (before.responses ?? {}) as Json,
      (after.responses ?? {}) as Json,
      response,
    );
    this.security(
      at(pointer, "security"),
      before.security ?? this.before.security,
      after.security ?? this.after.security,
    );
  }

  private list(value: unknown, side: "old" | "new"): Json[] {
    return Array.isArray(value) ? value.map((item) => (side === "old" ? this.old(item) : this.new(item))) : [];
  }

  private parameters(pointer: string, before: Json[], after: Json[], direction: Direction): void {
    const key = (parameter: Json) => `${String(parameter.in)}:${String(parameter.name).toLowerCase()}`;
    const afterByKey = new Map(after.map((parameter) => [key(parameter), parameter]));
    const beforeByKey = new Map(before.map((parameter) => [key(parameter), parameter]));
    for (const [name, parameterBefore] of beforeByKey) {
      const where = at(pointer, "parameters", String(parameterBefore.in), String(parameterBefore.name));
      const parameterAfter = afterByKey.get(name);
      if (parameterAfter === undefined) {
        this.report(where, "parameter-removed", `${String(parameterBefore.in)} ${String(parameterBefore.name)}`);
        continue;
      }
      if (direction === "sent" && parameterAfter.required === true && parameterBefore.required !== true) {
        this.report(where, "parameter-newly-required", `${String(parameterBefore.in)} ${String(parameterBefore.name)}`);
      }
      if (parameterAfter.deprecated === true && parameterBefore.deprecated !== true)
        this.report(where, "deprecated", `${String(parameterBefore.in)} ${String(parameterBefore.name)}`);
      this.schema(at(where, "schema"), parameterBefore.schema, parameterAfter.schema, direction);
    }
    for (const [name, parameterAfter] of afterByKey) {
      if (beforeByKey.has(name)) continue;
      const where = at(pointer, "parameters", String(parameterAfter.in), String(parameterAfter.name));
      const required = direction === "sent" && parameterAfter.required === true;
      this.report(
        where,
        required ? "parameter-newly-required" : "parameter-added",
        `${String(parameterAfter.in)} ${String(parameterAfter.name)}`,
      );
    }
  }

  private requestBody(pointer: string, before: unknown, after: unknown, direction: Direction): void {
    const [bodyBefore, bodyAfter] = [this.old(before), this.new(after)];
    if (direction === "sent" && bodyAfter.required === true && bodyBefore.required !== true) {
      this.report(pointer, "request-body-newly-required", "requestBody");
    }
    this.content(at(pointer, "content"), bodyBefore.content, bodyAfter.content, direction);
  }

  private content(pointer: string, before: unknown, after: unknown, direction: Direction): void {
    const [contentBefore, contentAfter] = [this.old(before), this.new(after)];
    for (const mediaType of Object.keys(contentBefore)) {
      const where = at(pointer, mediaType);
      if (!(mediaType in contentAfter)) this.report(where, "media-type-removed", mediaType);
      else
        this.schema(
          at(where, "schema"),
          this.old(contentBefore[mediaType]).schema,
          this.new(contentAfter[mediaType]).schema,
          direction,
        );
    }
  }

  private responses(pointer: string, before: Json, after: Json, direction: Direction): void {
    for (const status of keysOf(before, after)) {
      const where = at(pointer, status);
      if (!(status in after)) {
        this.report(where, "response-status-removed", status);
        continue;
      }
      if (!(status in before)) {
        this.report(where, "response-status-added", status);
        continue;
      }
      const [responseBefore, responseAfter] = [this.old(before[status]), this.new(after[status])];
      const [headersBefore, headersAfter] = [this.old(responseBefore.headers), this.new(responseAfter.headers)];
      const lower = (headers: Json) => new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
      const [namesBefore, namesAfter] = [lower(headersBefore), lower(headersAfter)];
      for (const [name, original] of namesBefore) {
        const renamed = namesAfter.get(name);
        if (renamed === undefined) this.report(at(where, "headers", original), "response-header-removed", original);
        else
          this.schema(
            at(where, "headers", renamed, "schema"),
            this.old(headersBefore[original]).schema,
            this.new(headersAfter[renamed]).schema,
            direction,
          );
      }
      for (const [name, original] of namesAfter) {
        if (!namesBefore.has(name)) this.report(at(where, "headers", original), "response-header-added", original);
      }
      this.content(at(where, "content"), responseBefore.content, responseAfter.content, direction);
    }
  }

  /**
   * The operation's security: a list of alternatives (each a scheme → scopes map; `[]` is no
   * security). Each alternative a consumer could use before must still be enough: some alternative
   * now must ask for no scheme and no scope it did not ask for.
   */
  private security(pointer: string, before: unknown, after: unknown): void {
    const alternatives = (value: unknown): Array<Record<string, string[]>> =>
      Array.isArray(value) && value.length > 0 ? (value as Array<Record<string, string[]>>) : [{}];
    for (const old of alternatives(before)) {
      const stillEnough = alternatives(after).some((now) =>
        Object.entries(now).every(
          ([scheme, scopes]) => scheme in old && scopes.every((scope) => old[scheme]!.includes(scope)),
        ),
      );
      if (!stillEnough)
        this.report(pointer, "security-requirement-added", `${stable(before ?? [])} → ${stable(after ?? [])}`);
    }
  }

  /** Compares two schemas in one direction, through `$ref`s, recursively. */
  private schema(pointer: string, before: unknown, after: unknown, direction: Direction): void {
    if (before === undefined || after === undefined) return;
    const pair = `${stable(before)}|${stable(after)}|${direction}`;
    if (this.visiting.has(pair)) return;
    this.visiting.add(pair);
    try {
      this.schemaPair(pointer, this.old(before), this.new(after), direction);
    } finally {
      this.visiting.delete(pair);
    }
  }

  private schemaPair(pointer: string, before: Json, after: Json, direction: Direction): void {
    const sent = direction === "sent";
    const tightened = sent ? "request-constraint-tightened" : "response-constraint-tightened";
    const loosened = sent ? "request-constraint-loosened" : "response-constraint-loosened";

    const [typesBefore, typesAfter] = [typesOf(before), typesOf(after)];
    if (typesBefore !== undefined || typesAfter !== undefined) {
      // Sent: a type the server took before must still be taken. Received: no type the consumer never saw.
      const [from, to] = sent ? [typesBefore, typesAfter] : [typesAfter, typesBefore];
      const lost = from === undefined ? [] : to === undefined ? [] : from.filter((type) => !to.includes(type));
      const narrowedToSome = sent
        ? typesBefore === undefined && typesAfter !== undefined
        : typesBefore !== undefined && typesAfter === undefined;
      if (lost.length > 0 || narrowedToSome) {
        this.report(at(pointer, "type"), "type-changed", `${stable(before.type)} → ${stable(after.type)}`);
      }
    }

    for (const keyword of [...UPPER_BOUNDS, ...LOWER_BOUNDS]) {
      const [old, now] = [before[keyword], after[keyword]];
      if (stable(old) === stable(now)) continue;
      const upper = (UPPER_BOUNDS as readonly string[]).includes(keyword);
      // Tighter: a bound appears, or moves inwards (an upper one down, a lower one up).
      const tighter =
        old === undefined || (now !== undefined && (upper ? compare(now, old) < 0 : compare(now, old) > 0));
      this.report(at(pointer, keyword), tighter ? tightened : loosened, `${keyword} ${stable(old)} → ${stable(now)}`);
    }
    for (const keyword of EXACT_KEYWORDS) {
      const [old, now] = [before[keyword], after[keyword]];
      if (stable(old) === stable(now)) continue;
      // A changed pattern both refuses what it took and takes what it refused: both directions break.
      if (now !== undefined && old !== undefined) {
        this.report(at(pointer, keyword), sent ? tightened : loosened, `${keyword} ${stable(old)} → ${stable(now)}`);
      } else
        this.report(
          at(pointer, keyword),
          now !== undefined ? tightened : loosened,
          `${keyword} ${stable(old)} → ${stable(now)}`,
        );
    }
    this.enumeration(pointer, before.enum, after.enum, tightened, loosened);
    if (after.additionalProperties === false && before.additionalProperties !== false) {
      this.report(at(pointer, "additionalProperties"), tightened, "unknown fields are now refused");
    }
    if (after.deprecated === true && before.deprecated !== true)
      this.report(at(pointer, "deprecated"), "deprecated", "the field");

    this.properties(pointer, before, after, direction);
    this.schema(at(pointer, "items"), before.items, after.items, direction);
    if (isObject(before.additionalProperties) && isObject(after.additionalProperties)) {
      this.schema(
        at(pointer, "additionalProperties"),
        before.additionalProperties,
        after.additionalProperties,
        direction,
      );
    }
    for (const combinator of ["allOf", "anyOf", "oneOf", "prefixItems"] as const) {
      const [listBefore, listAfter] = [before[combinator], after[combinator]];
      if (!Array.isArray(listBefore) || !Array.isArray(listAfter)) continue;
      listBefore.forEach((item, index) =>
        this.schema(at(pointer, combinator, String(index)), item, listAfter[index], direction),
      );
    }
  }

  private enumeration(pointer: string, before: unknown, after: unknown, tightened: Rule, loosened: Rule): void {
    if (!Array.isArray(before) && !Array.isArray(after)) return;
    const where = at(pointer, "enum");
    if (!Array.isArray(before)) return this.report(where, tightened, `enum ${stable(after)} added`);
    if (!Array.isArray(after)) return this.report(where, loosened, `enum ${stable(before)} removed`);
    const [valuesBefore, valuesAfter] = [before.map(stable), after.map(stable)];
    for (const value of valuesBefore)
      if (!valuesAfter.includes(value)) this.report(where, tightened, `enum value ${value} removed`);
    for (const value of valuesAfter)
      if (!valuesBefore.includes(value)) this.report(where, loosened, `enum value ${value} added`);
  }

  private properties(pointer: string, before: Json, after: Json, direction: Direction): void {
    const [propertiesBefore, propertiesAfter] = [this.old(before.properties), this.new(after.properties)];
    const requiredBefore = new Set((before.required ?? []) as string[]);
    const requiredAfter = new Set((after.required ?? []) as string[]);
    for (const name of keysOf(propertiesBefore, propertiesAfter)) {
      const where = at(pointer, "properties", name);
      if (!(name in propertiesAfter)) {
        if (direction === "received") this.report(where, "response-property-removed", name);
        // A sent body that takes unknown fields ignores one that is gone; one that refuses them refuses it.
        else if (after.additionalProperties === false) this.report(where, "request-property-removed", name);
        else this.report(where, "other-change", `${name} removed (unknown fields are accepted)`);
        continue;
      }
      if (!(name in propertiesBefore)) {
        const required = direction === "sent" && requiredAfter.has(name);
        this.report(where, required ? "request-property-newly-required" : "property-added", name);
        continue;
      }
      if (direction === "sent" && requiredAfter.has(name) && !requiredBefore.has(name)) {
        this.report(where, "request-property-newly-required", name);
      }
      if (direction === "received" && requiredBefore.has(name) && !requiredAfter.has(name)) {
        this.report(where, "response-property-newly-optional", name);
      }
      this.schema(where, propertiesBefore[name], propertiesAfter[name], direction);
    }
  }

  /** An object of the older document, its `$ref` followed (an empty object for nothing). */
  private old(value: unknown): Json {
    const resolved = resolve(this.before, value);
    return isObject(resolved) ? resolved : {};
  }

  private new(value: unknown): Json {
    const resolved = resolve(this.after, value);
    return isObject(resolved) ? resolved : {};
  }
}

function keysOf(before: Json, after: Json): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])];
}

/**
 * Every difference between two OpenAPI 3.1 documents that the rules name, each once, breaking ones
 * first. Differences no rule names (descriptions, examples) are not listed: `isSameDocument` tells
 * whether there are any.
 */
export function classifyChanges(before: Json, after: Json): Difference[] {
  const comparison = new Comparison(before, after);
  comparison.run();
  const seen = new Set<string>();
  const unique = comparison.differences.filter((difference) => {
    const key = `${difference.pointer}|${difference.rule}|${difference.detail}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return [
    ...unique.filter((difference) => difference.breaking),
    ...unique.filter((difference) => !difference.breaking),
  ];
}

/** The pointers (up to `limit`) where two documents differ at all, `info.version` aside. */
export function textualDifferences(before: unknown, after: unknown, limit = 20, pointer = "#"): string[] {
  if (pointer === "#/info/version") return [];
  if (stable(before) === stable(after)) return [];
  if (!isObject(before) || !isObject(after)) {
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      return before
        .flatMap((item, index) => textualDifferences(item, after[index], limit, `${pointer}/${index}`))
        .slice(0, limit);
    }
    return [pointer];
  }
  const found: string[] = [];
  for (const key of keysOf(before, after)) {
    if (found.length >= limit) break;
    found.push(...textualDifferences(before[key], after[key], limit - found.length, at(pointer, key)));
  }
  return found;
}
