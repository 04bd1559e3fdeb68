import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createPlantStoreClient } from "@plantstore/client";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, RESULTS, TOKEN, watch } from "./support.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Every axe-core violation on the page as it is (any impact: none is accepted). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: () => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map(
      ({ id, impact, nodes }) => `${id} (${impact}): ${nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
  });
}

const WIDTHS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 375, height: 740 },
] as const;
const SCHEMES = ["light", "dark"] as const;

describeWith(chromiumTool(), "the web app's look, at 1280 and 375 px, light and dark", (executablePath) => {
  let browser: Browser;
  let server: DisposableServer;
  beforeAll(async () => {
    browser = await launch(executablePath);
    server = await startDisposableServer({ tokens: [TOKEN], prefix: "plantstore-web-look-" });
    const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
    const names = ["Monstera deliciosa", "Fern", "Aloe vera", "Calathea orbifolia", "Snake plant", "Pothos"];
    for (let id = 1; id <= 56; id++) {
      const tag = id % 3 === 0 ? "tropical" : id % 5 === 0 ? "succulent" : undefined;
      await client.createPlant({ id, name: `${names[id % names.length]} ${id}`, ...(tag ? { tag } : {}) });
    }
    await client.createPlant({ id: 9_223_372_036_854_775_807n, name: "The largest id there is", tag: "int64" });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const size of WIDTHS) {
    describe.each(SCHEMES)(`${size.width} px, %s`, (scheme) => {
      let context: BrowserContext;
      let page: Page;
      let problems: string[];
      const shot = (state: string) =>
        page.screenshot({
          path: new URL(`web-app-${size.name}-${scheme}-${state}.png`, RESULTS).pathname,
        });

      beforeAll(async () => {
        context = await browser.newContext({
          viewport: { width: size.width, height: size.height },
          colorScheme: scheme,
        });
        page = await context.newPage();
        problems = watch(page, new URL(server.url).origin);
      });
      afterAll(() => context?.close());

      it("follows the system's colour scheme", async () => {
        await page.goto(`${server.url}/`);
        await page.getByLabel("API token").waitFor();
        const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        const [r, g, b] = background.match(/\d+/g)!.map(Number);
        const light = (r! + g! + b!) / 3 > 128;
        expect(light, background).toBe(scheme === "light");
      });

      it("has no axe-core violation on the connect screen, also with its refusal", async () => {
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole("button", { name: "Connect" }).click();
        await page.getByLabel("API token").and(page.locator("[aria-invalid=true]")).waitFor();
        expect(await axeViolations(page)).toEqual([]);
        await shot("connect");
      });

      it("keeps what is above the table, and the table's columns, in place when the plants arrive", async () => {
        // The first page is held back until the page without it has been measured.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route(
          (url) => url.pathname === "/plants" && url.searchParams.get("limit") === "50",
          async (route: Route) => {
            await held;
            await route.continue();
          },
        );
        await page.getByLabel("API token").fill(TOKEN);
        await page.getByRole("button", { name: "Connect" }).click();
        await page.getByText("Loading…").waitFor();
        const layout = () =>
          page.evaluate(() =>
            [...document.querySelectorAll("h1, h2, input, button:not(tbody button), caption, th")].map((element) => {
              const box = element.getBoundingClientRect();
              return `${element.tagName} ${element.textContent} ${box.x},${box.y} ${box.width}x${box.height}`;
            }),
          );
        const before = await layout();
        release();
        await expect.poll(() => page.getByRole("table", { name: "Plants" }).locator("tbody tr").count()).toBe(50);
        await page.unroute(() => true);
        // Load more appears below the table: everything else stays where it was.
        expect((await layout()).filter((line) => !line.includes("Load more"))).toEqual(before);
      });

      it("keeps the columns' widths whatever the rows hold", async () => {
        const widths = () => page.getByRole("columnheader").evaluateAll((cells) => cells.map((c) => c.clientWidth));
        const all = await widths();
        await page.getByLabel("Filter by tag").fill("int64");
        await page.getByLabel("Filter by tag").press("Enter");
        await expect.poll(() => page.getByRole("table", { name: "Plants" }).locator("tbody tr").count()).toBe(1);
        expect(await widths()).toEqual(all);
        await page.getByLabel("Filter by tag").fill("");
        await page.getByLabel("Filter by tag").press("Enter");
        await expect.poll(() => page.getByRole("table", { name: "Plants" }).locator("tbody tr").count()).toBe(50);
        expect(await widths()).toEqual(all);
      });

      it("has no axe-core violation with the table, a row in its edit form, a refusal, and a delete to confirm", async () => {
        expect(await axeViolations(page)).toEqual([]);
        await shot("plants");

        await page.getByRole("button", { name: "Edit Fern 7 (7)" }).click();
        const newName = page.getByLabel("New name", { exact: true });
        await newName.fill("");
        await newName.press("Enter");
        await page.locator("#edit-name[aria-invalid=true]").waitFor();
        expect(await axeViolations(page)).toEqual([]);
        await shot("edit");
        await newName.press("Escape");

        await page.getByRole("button", { name: "Delete Aloe vera 8 (8)" }).click();
        await page.getByRole("button", { name: "Keep Aloe vera 8 (8)" }).waitFor();
        expect(await axeViolations(page)).toEqual([]);
        await shot("delete");
        await page.keyboard.press("Escape");
      });

      it("is what the README shows (test-results/readme.png, 1280 px, light)", async () => {
        if (size.width !== 1280 || scheme !== "light") return;
        // A search as typed, a row in its edit form: the app at work.
        await page.getByLabel("Search by name").fill("");
        await page.getByLabel("Filter by tag").fill("tropical");
        await page.getByLabel("Filter by tag").press("Enter");
        await page.getByRole("button", { name: "Edit Calathea orbifolia 21 (21)" }).click();
        await page.getByLabel("New name", { exact: true }).fill("Calathea orbifolia 'Medallion'");
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: new URL("readme.png", RESULTS).pathname });
        await page.keyboard.press("Escape");
        await page.getByLabel("Filter by tag").fill("");
        await page.getByLabel("Filter by tag").press("Enter");
        await expect.poll(() => page.getByRole("table", { name: "Plants" }).locator("tbody tr").count()).toBe(50);
      });

      it("shows a visible focus ring on what the keyboard reaches", async () => {
        await page.getByLabel("Search by name").focus();
        await page.keyboard.press("Tab");
        const outline = await page.evaluate(() => {
          const style = getComputedStyle(document.activeElement!);
          return `${style.outlineStyle} ${style.outlineWidth}`;
        });
        expect(outline).toBe("solid 3px");
      });

      it("had no console error and no request to another origin", () => {
        expect(problems).toEqual([]);
      });
    });
  }
});
