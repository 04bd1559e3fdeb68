import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "./support.js";

/** The budget of the app's production JavaScript and CSS, every file gzipped, in total (the 150 kB). */
const BUDGET_BYTES = 150_000;

const ASSETS = new URL("../dist/assets/", import.meta.url);

describe("the web app as the server serves it", () => {
  let server: DisposableServer;
  beforeAll(async () => {
    server = await startDisposableServer({ tokens: [TOKEN], prefix: "plantstore-web-" });
  });
  afterAll(() => server?.close());

  it("is GET / with no token, under a strict Content-Security-Policy, with no inline script", async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy.split("; ")).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "style-src 'self'"]),
    );
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/ src="\/web\/assets\/[^"]+\.js"/);
    // The look is one external stylesheet ('self'): no <style> element, no style attribute.
    const stylesheets = [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*>/g)].map(([tag]) => tag);
    expect(stylesheets).toHaveLength(1);
    expect(stylesheets[0]).toMatch(/ href="\/web\/assets\/[^"]+\.css"/);
    expect(html).not.toMatch(/<style\b| style=/);
  });

  it("serves every file index.html names from /web/assets/, for good (hashed names)", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const files = [...html.matchAll(/(?:src|href)="(\/web\/assets\/[^"]+)"/g)].map(([, path]) => path!);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const path of files) {
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(/^text\/(javascript|css); charset=utf-8$/);
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
  });

  it("answers a JSON 404 for any other file, and nothing outside the build", async () => {
    for (const path of ["/web/assets/nope.js", "/web/assets/..%2f..%2fpackage.json", "/web/assets/index.html"]) {
      const answer = await fetch(`${server.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ error: expect.any(Number), message: expect.any(String) });
    }
  });

  it("keeps its production JavaScript and CSS within the budget", () => {
    const files = readdirSync(ASSETS).filter((file) => file.endsWith(".js") || file.endsWith(".css"));
    expect(files.filter((file) => file.endsWith(".css"))).toHaveLength(1);
    const gzipped = files.reduce(
      (sum, file) => sum + gzipSync(readFileSync(new URL(file, ASSETS)), { level: 9 }).byteLength,
      0,
    );
    expect(gzipped, `the app's JavaScript and CSS are ${gzipped} bytes gzipped`).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
