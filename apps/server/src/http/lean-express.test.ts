import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type Response } from "express";
import expressPackage from "express/package.json" with { type: "json" };
import { afterEach, describe, expect, it } from "vitest";
import { createLeanExpressApp } from "./lean-express.js";

/**
 * lean-express.ts relies on Express 4 internals. These tests pin them, so that an Express upgrade
 * that changes them fails here, not in production.
 */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function listen(app: Express, options: Parameters<typeof createServer>[0] = {}): Promise<number> {
  const server = createServer(options, app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject).end();
  });
}

const bodies: unknown[] = [
  { name: "Fern", tag: "indoor" },
  { error: 40901, message: "naïve 🌿 \u2028" },
  [1, 2],
  "text",
];

function routes(app: Express): Express {
  bodies.forEach((body, index) => app.get(`/${index}`, (_req, res: Response) => res.status(201).json(body)));
  return app;
}

describe("lean Express (pinned Express 4 internals)", () => {
  it("runs on Express 4", () => {
    expect(expressPackage.version).toMatch(/^4\./);
  });

  it("creates requests and responses with the app's prototypes, so expressInit's swap changes nothing", async () => {
    const { app, serverOptions } = createLeanExpressApp(JSON.stringify);
    const seen: boolean[] = [];
    app.use((req, res, next) => {
      // After expressInit (which ran before this middleware) the prototypes are the app's, and
      // they were so from the start: the request object was created by serverOptions' class.
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
      seen.push(req instanceof (serverOptions.IncomingMessage as unknown as typeof Function));
      next();
    });
    app.get("/", (_req, res) => res.json({ ok: true }));
    const port = await listen(app, serverOptions);
    expect((await call(port, "GET", "/")).status).toBe(200);
    expect(seen).toEqual([true, true, true]);
  });

  it("json() answers exactly what Express's own json() answers: status, type, length, body", async () => {
    const { app: lean, serverOptions } = createLeanExpressApp(JSON.stringify);
    lean.disable("etag");
    const leanPort = await listen(routes(lean), serverOptions);
    const stock = express();
    stock.disable("x-powered-by");
    stock.disable("etag");
    const stockPort = await listen(routes(stock));
    for (const index of bodies.keys()) {
      const [ours, theirs] = await Promise.all([
        call(leanPort, "GET", `/${index}`),
        call(stockPort, "GET", `/${index}`),
      ]);
      expect(ours.status).toBe(theirs.status);
      expect(ours.body).toBe(theirs.body);
      expect(ours.headers["content-type"]).toBe(theirs.headers["content-type"]);
      expect(ours.headers["content-length"]).toBe(theirs.headers["content-length"]);
    }
  });

  it("answers HEAD with the GET's headers and no body, as Express does", async () => {
    const { app, serverOptions } = createLeanExpressApp(JSON.stringify);
    const port = await listen(routes(app), serverOptions);
    const [head, get] = await Promise.all([call(port, "HEAD", "/0"), call(port, "GET", "/0")]);
    expect(head.status).toBe(201);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
  });

  it("relies on no json setting (replacer, spaces, escape) that lean json() would ignore", () => {
    const { app } = createLeanExpressApp(JSON.stringify);
    expect([app.get("json replacer"), app.get("json spaces"), app.get("json escape")]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(app.get("x-powered-by")).toBe(false);
    expect(app.get("etag")).toBe(false);
  });
});
