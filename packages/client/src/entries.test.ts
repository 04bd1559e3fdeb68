import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as portableEntry from "./index.js";

/** The budget of the browser bundle of the main entry, minified and gzipped (the 40 kB). */
const BROWSER_BUNDLE_BUDGET_BYTES = 40_000;

const packageRoot = new URL("..", import.meta.url).pathname;

/**
 * The main entry bundled as a web app's bundler would (esbuild, platform browser, minified), by
 * the package's name so that its `exports` map is what is tested: the build runs on dist/, which
 * the vitest config builds before the tests.
 */
async function bundleForBrowser() {
  return build({
    stdin: {
      contents: 'export { createPlantStoreClient, PlantStoreError } from "@plantstore/client";',
      resolveDir: packageRoot,
      loader: "js",
    },
    bundle: true,
    platform: "browser",
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
}

describe("the main entry in a browser bundle", () => {
  it("bundles with no Node built-in and no warning, within the budget", async () => {
    // A Node built-in fails the build itself ("Could not resolve node:http"): build() rejects.
    const result = await bundleForBrowser();
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter(
        (input) => input.startsWith("node:") || /node-transport|webhook-receiver|webhook-signature/.test(input),
      ),
    ).toEqual([]);
    // The OpenAPI generator never runs in a browser: none of it may be carried along.
    expect(inputs.filter((input) => /zod-openapi|ts-deepmerge|open-api|openapi3-ts/.test(input))).toEqual([]);
    const [output] = result.outputFiles;
    const gzipped = gzipSync(output!.contents, { level: 9 }).byteLength;
    expect(gzipped, `the browser bundle is ${gzipped} bytes gzipped`).toBeLessThanOrEqual(BROWSER_BUNDLE_BUDGET_BYTES);
  });
});

describe("each entry's default transport", () => {
  let seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" }).end('{"id":1,"name":"Fern"}');
  });
  let baseUrl = "";
  beforeAll(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // `fetch` (undici) says `sec-fetch-mode: cors` on every request; node:http sends no such header.
  it("under Node, the package's main entry sends with node:http", async () => {
    seen = [];
    // The package by its own name, as an importer resolves it: Node's `node` condition applies.
    const { createPlantStoreClient } = await import("@plantstore/client");
    await createPlantStoreClient({ baseUrl, token: "t" }).getPlant(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!["sec-fetch-mode"]).toBeUndefined();
  });

  it("the portable entry sends with the global fetch", async () => {
    seen = [];
    await portableEntry.createPlantStoreClient({ baseUrl, token: "t" }).getPlant(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!["sec-fetch-mode"]).toBe("cors");
  });
});
