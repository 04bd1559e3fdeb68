import { mkdirSync } from "node:fs";
import { chromiumArgs, chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";

const browserTool = chromiumTool();

/** Kept as a build artifact (git-ignored): what the page looked like in the last run. */
const SCREENSHOT = new URL("../test-results/docs-page.png", import.meta.url);

describeWith(browserTool, "GET /docs in headless Chromium", (executablePath) => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  /** Everything that went wrong while the page was open: console errors, failed or refused requests. */
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({});
    browser = await chromium.launch({ executablePath, args: chromiumArgs() });
    page = await browser.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("loads with no console error and no failed request, every asset from the server itself", async () => {
    const origins = new Set<string>();
    page.on("request", (request) => origins.add(new URL(request.url()).origin));
    const answer = await page.goto(`${server.url}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await page.locator(".opblock").first().waitFor();
    expect(problems).toEqual([]);
    expect([...origins]).toEqual([new URL(server.url).origin]);
  });

  it("shows every operation and both webhooks of the served 3.1 document", async () => {
    const visible = (locator: ReturnType<Page["locator"]>) => locator.first().waitFor({ state: "visible" });
    for (const operationId of ["createPlant", "getPlant", "listPlants", "deletePlant"]) {
      await visible(page.locator(`#operations-plants-${operationId}`));
    }
    await visible(page.getByText("plant.created", { exact: true }));
    await visible(page.getByText("plant.deleted", { exact: true }));
    await visible(page.getByText("OAS 3.1"));
  });

  it("creates a plant from the page with a pasted token: 200, and the plant is stored", async () => {
    await page.locator("button.authorize").first().click();
    await page.locator(".modal-ux input").first().fill(TOKEN);
    await page.locator(".modal-ux button.authorize").click();
    await page.locator(".modal-ux button.btn-done").click();

    const create = page.locator("#operations-plants-createPlant");
    await create.locator(".opblock-summary").click();
    await create.locator("button.try-out__btn").click();
    await create
      .locator("textarea.body-param__text")
      .fill('{"id": 9007199254740993, "name": "From the docs page", "tag": "web"}');
    await create.locator("button.execute").click();
    const status = create.locator(".live-responses-table tbody .response-col_status").first();
    await status.waitFor({ state: "visible" });
    expect((await status.textContent())?.trim()).toBe("200");

    const stored = await fetch(`${server.url}/plants/9007199254740993`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await stored.text()).toBe('{"id":9007199254740993,"name":"From the docs page","tag":"web"}');

    mkdirSync(new URL(".", SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.pathname, fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
