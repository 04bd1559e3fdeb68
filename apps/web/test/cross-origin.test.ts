import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import { build } from "esbuild";
import type * as PlantStoreClientPackage from "@plantstore/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../../server/src/test-support/databases.js";
import { launch, TOKEN, watch } from "./support.js";

/**
 * `@plantstore/client` bundled as a web app's bundler would (esbuild, platform browser), used from
 * a page on a second origin (another port) against the real server with that origin allowed.
 */
async function bundleClient(): Promise<string> {
  const result = await build({
    stdin: {
      contents: 'export { createPlantStoreClient, PlantStoreError } from "@plantstore/client";',
      resolveDir: new URL(".", import.meta.url).pathname,
      loader: "js",
    },
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "PlantStore",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** A static page server: the page and the bundled client, nothing else. */
async function startPageServer(clientBundle: string): Promise<{ server: Server; origin: string }> {
  const files: Record<string, [string, string]> = {
    "/": ["text/html; charset=utf-8", '<!doctype html><title>Sibling app</title><script src="/client.js"></script>'],
    "/client.js": ["text/javascript; charset=utf-8", clientBundle],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (file === undefined) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": file[0] }).end(file[1]);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What the page's script does with the client: every answer as text (bigints as digits). */
function useClientFromPage(page: Page, apiUrl: string) {
  return page.evaluate(
    async ({ apiUrl, token }) => {
      type Client = typeof PlantStoreClientPackage;
      type Failure = InstanceType<Client["PlantStoreError"]>;
      const failureOf = (promise: Promise<unknown>) =>
        promise.then(
          () => {
            throw new Error("expected a failure");
          },
          (error: unknown) => error as Failure,
        );
      const { createPlantStoreClient } = (window as unknown as { PlantStore: Client }).PlantStore;
      const client = createPlantStoreClient({ baseUrl: apiUrl, token, retry: false });
      const id = 2n ** 53n + 1n;
      const created = await client.createPlant({ id, name: "Far Fern", tag: "cors" });
      const read = await client.getPlant(id);
      const listed = await client.listPlants({ tag: "cors" });
      const deleted = await client.deletePlant(id);
      const afterDelete = await failureOf(client.getPlant(id));
      const stranger = createPlantStoreClient({ baseUrl: apiUrl, token: "not-a-known-token-0000", retry: false });
      const refused = await failureOf(stranger.getPlant(1));
      return {
        created: created.outcome,
        read: `${read.id} ${read.name} ${read.tag}`,
        listed: listed.plants.map((plant) => String(plant.id)),
        deleted: deleted.outcome,
        afterDelete: `${afterDelete.status} ${afterDelete.codeName}`,
        refused: `${refused.status} ${refused.detail}`,
      };
    },
    { apiUrl, token: TOKEN },
  );
}

describeWith(
  chromiumTool(),
  "the bundled client from a page on another origin, in headless Chromium",
  (executablePath) => {
    let browser: Browser;
    let pages: { server: Server; origin: string };
    beforeAll(async () => {
      browser = await launch(executablePath);
      pages = await startPageServer(await bundleClient());
    });
    afterAll(async () => {
      await browser?.close();
      pages?.server.close();
    });

    describe.each(testBackends())("on $name", (backend) => {
      let api: DisposableServer;
      beforeAll(async () => {
        api = await startDisposableServer({
          tokens: [TOKEN],
          prefix: "plantstore-web-cors-",
          config: { databaseUrl: await backend.freshDatabaseUrl(), corsOrigins: [pages.origin] },
        });
      });
      afterAll(async () => {
        await api?.close();
        await backend.cleanup();
      });

      it("creates, reads, lists and deletes an id above 2^53 with PLANTSTORE_CORS_ORIGINS naming the page's origin", async () => {
        const page = await browser.newPage();
        const problems = watch(page, pages.origin);
        try {
          await page.goto(`${pages.origin}/`);
          expect(await useClientFromPage(page, api.url)).toEqual({
            created: "created",
            read: "9007199254740993 Far Fern cors",
            listed: ["9007199254740993"],
            deleted: "deleted",
            afterDelete: "404 PLANT_NOT_FOUND",
            refused: expect.stringMatching(/^401 \S/),
          });
          // The only other origin the page spoke to is the API's.
          expect(problems.filter((problem) => !problem.startsWith(`request to another origin: ${api.url}/`))).toEqual(
            [],
          );
        } finally {
          await page.close();
        }
      });
    });

    it("cannot read a thing from a server that does not list the page's origin", async () => {
      const api = await startDisposableServer({ tokens: [TOKEN], prefix: "plantstore-web-cors-" });
      const page = await browser.newPage();
      try {
        await page.goto(`${pages.origin}/`);
        const failure = await useClientFromPage(page, api.url).catch((error: unknown) => String(error));
        expect(failure).toMatch(/could not reach/);
      } finally {
        await page.close();
        await api.close();
      }
    });
  },
);
