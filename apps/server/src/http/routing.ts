import type { IncomingMessage, ServerResponse } from "node:http";
import { isScope, type OperationMetadata, type Scope } from "@plantstore/contract";
import { isAppRoute, type AppRouter } from "@ts-rest/core";
import { z } from "zod";
import { methodNotAllowed, notFound, type ApiError } from "./answer.js";
import { pathOf } from "./context.js";

/** What a request is for: one operation of the contract, or one of the server's public routes. */
export interface Operation {
  /** The contract's operation id (`createPlant`, …) or a public route's name (`healthz`, …). */
  readonly id: string;
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Express-style path: `/plants/:id`. */
  readonly path: string;
  /** The scope a bearer token needs for it (every contract operation has one); undefined: public. */
  readonly scope: Scope | undefined;
  /** Carries a JSON body, read before validation. */
  readonly hasBody: boolean;
  /** The query parameters it takes (from the contract), any other being refused; "any" for public routes. */
  readonly queryNames: ReadonlySet<string> | "any";
  /** Validation → handler → answer. Faults go to `fail` (they become a JSON 500 or 503). */
  readonly handle: (req: IncomingMessage, res: ServerResponse, fail: (error: unknown) => void) => void;
}

/** A public GET route (probes, the OpenAPI documents, the docs page): no token, no body, any query. */
export function publicRoute(id: string, path: string, handle: Operation["handle"]): Operation {
  return { id, method: "GET", path, scope: undefined, hasBody: false, queryNames: "any", handle };
}

/**
 * The contract's operations as a list: id, method, path, scope, query parameters, whether a body
 * comes with them. Each is handled by `handle`, or by its own handler in `own` (the change stream).
 */
export function contractOperations(
  contract: AppRouter,
  handle: Operation["handle"],
  own: Readonly<Record<string, Operation["handle"]>> = {},
): Operation[] {
  return Object.entries(contract).map(([id, route]) => {
    if (!isAppRoute(route)) throw new Error(`the contract must be flat; ${id} is a nested router`);
    if (route.method === "PATCH") {
      throw new Error(`${id}: method ${route.method} has no route here`);
    }
    const { scope } = (route.metadata ?? {}) as Partial<OperationMetadata>;
    if (scope === undefined || !isScope(scope)) throw new Error(`${id}: the contract must name the scope it needs`);
    const queryNames = new Set(route.query instanceof z.ZodObject ? Object.keys(route.query.shape as object) : []);
    return {
      id,
      method: route.method,
      path: route.path,
      scope,
      hasBody: "body" in route,
      queryNames,
      handle: own[id] ?? handle,
    };
  });
}

/** The order methods are listed in `Allow`. */
const METHOD_ORDER = ["GET", "POST", "PUT", "DELETE"] as const;

interface PathEntry {
  pattern: RegExp;
  byMethod: Map<string, Operation>;
  allow: string;
}

/**
 * `/plants/:id` → /^\/plants\/[^/]+\/?$/i: case-insensitive and with an optional trailing slash,
 * as Express matches paths by default, so that both always agree on what a path is.
 */
function compile(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`, "i");
}

/** The path of a request target; an absolute-form target (RFC 9112 §3.2.2) is reduced to its path. */
function targetPath(url: string): string {
  const path = pathOf(url);
  if (!/^https?:\/\//i.test(path)) return path;
  const slash = path.indexOf("/", path.indexOf("//") + 2);
  return slash === -1 ? "/" : path.slice(slash);
}

/**
 * Step 2: which operation a request is for. An unknown path is a 404 and a known path with
 * another method a 405 with `Allow`, both answered before the token is looked at (they reveal
 * nothing that the OpenAPI document does not). HEAD is served wherever GET is (RFC 9110 §9.3.2).
 */
export class Routes {
  private readonly paths: PathEntry[] = [];

  constructor(operations: readonly Operation[]) {
    for (const operation of operations) {
      let entry = this.paths.find((candidate) => candidate.pattern.source === compile(operation.path).source);
      if (entry === undefined) {
        entry = { pattern: compile(operation.path), byMethod: new Map(), allow: "" };
        this.paths.push(entry);
      }
      if (entry.byMethod.has(operation.method))
        throw new Error(`two operations for ${operation.method} ${operation.path}`);
      entry.byMethod.set(operation.method, operation);
      entry.allow = METHOD_ORDER.filter((method) => entry.byMethod.has(method)).join(", ");
    }
  }

  match(req: IncomingMessage): Operation | ApiError {
    const path = targetPath(req.url ?? "");
    const entry = this.entryOf(path);
    if (entry === undefined) return notFound(req.method ?? "", path);
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "");
    return entry.byMethod.get(method) ?? methodNotAllowed(req.method ?? "", entry.allow);
  }

  /** The methods served at the request's path (its `Allow`), or undefined for a path no route has. */
  allowAt(req: IncomingMessage): string | undefined {
    return this.entryOf(targetPath(req.url ?? ""))?.allow;
  }

  private entryOf(path: string): PathEntry | undefined {
    return this.paths.find((entry) => entry.pattern.test(path));
  }
}
