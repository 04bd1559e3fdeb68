import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createPlantStoreClient } from "@plantstore/client";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../../server/src/test-support/databases.js";
import { launch, READ_ONLY_TOKEN, RESULTS, TOKEN, watch } from "./support.js";

const BIG_ID = 2n ** 53n + 1n; // 9007199254740993: a number would read it as ...992
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** What the server itself says to `token` on GET /plants (the message the page must show). */
async function serverMessage(url: string, init: RequestInit & { path?: string } = {}): Promise<string> {
  const answer = await fetch(`${url}${init.path ?? "/plants"}`, init);
  return ((await answer.json()) as { message: string }).message;
}

describeWith(chromiumTool(), "the web app in headless Chromium", (executablePath) => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch(executablePath);
  });
  afterAll(() => browser?.close());

  describe.each(testBackends())("on $name", (backend) => {
    let server: DisposableServer;
    let page: Page;
    let problems: string[];
    /** The API requests the page made, as `METHOD path`. */
    const apiRequests: string[] = [];
    const rows = () => page.getByRole("table", { name: "Plants" }).locator("tbody tr");
    const alert = () => page.getByRole("alert");

    beforeAll(async () => {
      server = await startDisposableServer({
        tokens: [TOKEN, `${READ_ONLY_TOKEN}:plants:read`],
        prefix: "plantstore-web-",
        config: { databaseUrl: await backend.freshDatabaseUrl() },
      });
      // 60 plants: more than one page of the table (50).
      const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
      for (let id = 1; id <= 60; id++) {
        await client.createPlant({ id, name: `Plant ${id}`, ...(id % 10 === 0 ? { tag: "tropical" } : {}) });
      }
      const context = await browser.newContext();
      page = await context.newPage();
      problems = watch(page, new URL(server.url).origin);
      page.on("request", (request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith("/plants")) apiRequests.push(`${request.method()} ${url.pathname}${url.search}`);
      });
    });
    afterAll(async () => {
      await page?.context().close();
      await server?.close();
      await backend.cleanup();
    });

    it("shows a refused token's message from the server, and keeps the token out of URLs and localStorage", async () => {
      await page.goto(`${server.url}/`);
      await page.getByLabel("API token").fill("not-a-known-token-0000");
      await page.getByRole("button", { name: "Connect" }).click();
      const expected = await serverMessage(server.url, { headers: { authorization: "Bearer not-a-known-token-0000" } });
      await expect.poll(() => alert().textContent()).toBe(expected);
      expect(await page.getByRole("table", { name: "Plants" }).count()).toBe(0);
    });

    it("connects, and shows the first page in ascending id order with Load more", async () => {
      await page.getByLabel("API token").fill(TOKEN);
      await page.getByRole("button", { name: "Connect" }).click();
      await expect.poll(() => rows().count()).toBe(50);
      const ids = await rows().locator("td:first-child").allTextContents();
      expect(ids).toEqual(Array.from({ length: 50 }, (_, index) => String(index + 1)));
      expect(await page.getByRole("columnheader").allTextContents()).toEqual(["Id", "Name", "Tag", "Actions"]);
      expect(await alert().textContent()).toBe("");
      // The token lives in this tab's sessionStorage only.
      expect(page.url()).not.toContain(TOKEN);
      expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(TOKEN);
      expect(await page.evaluate(() => JSON.stringify(sessionStorage))).toContain(TOKEN);
    });

    it("loads more while the server's Link says more follow", async () => {
      await page.getByRole("button", { name: "Load more" }).click();
      await expect.poll(() => rows().count()).toBe(60);
      await expect.poll(() => page.getByRole("button", { name: "Load more" }).count()).toBe(0);
      expect(apiRequests).toContain("GET /plants?limit=50&after=50");
    });

    it("filters by tag when Enter is pressed, and back", async () => {
      await page.getByLabel("Filter by tag").fill("tropical");
      await page.getByLabel("Filter by tag").press("Enter");
      await expect
        .poll(() => rows().locator("td:first-child").allTextContents())
        .toEqual(["10", "20", "30", "40", "50", "60"]);
      await page.getByLabel("Filter by tag").fill("");
      await page.getByLabel("Filter by tag").press("Enter");
      // Both pages of the unfiltered list are back (and read again from the server).
      await expect.poll(() => rows().count()).toBe(60);
    });

    it("adds a plant with an id above 2^53, shown and stored digit for digit", async () => {
      await page.getByLabel("Id", { exact: true }).fill(String(BIG_ID));
      await page.getByLabel("Name", { exact: true }).fill("Big Fern");
      await page.getByLabel("Tag", { exact: true }).fill("huge");
      await page.getByRole("button", { name: "Add plant" }).click();
      await page.getByRole("button", { name: `Delete Big Fern (${BIG_ID})` }).waitFor();
      expect(await rows().filter({ hasText: "Big Fern" }).locator("td").allTextContents()).toEqual([
        String(BIG_ID),
        "Big Fern",
        "huge",
        "Edit Delete",
      ]);
      const stored = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN }).getPlant(BIG_ID);
      expect(stored).toEqual({ id: BIG_ID, name: "Big Fern", tag: "huge" });
      expect(apiRequests.filter((request) => request === "POST /plants")).toHaveLength(1);
    });

    it("refuses an invalid plant in the page, with the reason, sending nothing", async () => {
      const before = apiRequests.length;
      await page.getByLabel("Id", { exact: true }).fill("9223372036854775808"); // 2^63: outside int64
      await page.getByLabel("Name", { exact: true }).fill("Too big");
      await page.getByRole("button", { name: "Add plant" }).click();
      await expect.poll(() => alert().textContent()).toBe("Id: must be between -2^63 and 2^63-1 (int64)");
      await page.getByLabel("Id", { exact: true }).fill("5000");
      await page.getByLabel("Name", { exact: true }).fill("");
      await page.getByRole("button", { name: "Add plant" }).click();
      await expect.poll(() => alert().textContent()).toMatch(/^Name: /);
      expect(apiRequests.slice(before)).toEqual([]);
    });

    it("shows the server's message for a 409 conflict", async () => {
      await page.getByLabel("Id", { exact: true }).fill("7");
      await page.getByLabel("Name", { exact: true }).fill("Not plant 7");
      await page.getByLabel("Tag", { exact: true }).fill("");
      await page.getByRole("button", { name: "Add plant" }).click();
      const expected = await serverMessage(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: '{"id":7,"name":"Not plant 7"}',
      });
      expect(expected).toMatch(/7/);
      await expect.poll(() => alert().textContent()).toBe(expected);
      expect(await rows().filter({ hasText: "Not plant 7" }).count()).toBe(0);
    });

    it("edits a plant from its row: checked before sending, Cancel, Save; the row and the server have it", async () => {
      const before = apiRequests.length;
      await page.getByRole("button", { name: "Edit Plant 8 (8)" }).click();
      const newName = page.getByLabel("New name", { exact: true });
      const newTag = page.getByLabel("New tag", { exact: true });
      await expect.poll(() => newName.inputValue()).toBe("Plant 8");
      // The form opens with the focus in its first field; Cancel (from the keyboard) closes it unchanged.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("edit-name");
      await page.getByRole("button", { name: "Cancel" }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => newName.count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Edit Plant 8 (8)");

      await page.keyboard.press("Enter");
      await expect.poll(() => newName.inputValue()).toBe("Plant 8");
      await newName.fill("");
      await page.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => alert().textContent()).toMatch(/^Name: /);
      expect(apiRequests.slice(before)).toEqual(["GET /plants/8", "GET /plants/8"]);

      await newName.fill("Edited Fern");
      await newTag.fill("shade");
      await newTag.press("Enter");
      await page.getByRole("button", { name: "Edit Edited Fern (8)" }).waitFor();
      expect(await rows().filter({ hasText: "Edited Fern" }).locator("td").allTextContents()).toEqual([
        "8",
        "Edited Fern",
        "shade",
        "Edit Delete",
      ]);
      expect(await page.getByRole("status").textContent()).toBe("Saved Edited Fern (8).");
      expect(await newName.count()).toBe(0);
      const stored = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN }).getPlant(8);
      expect(stored).toEqual({ id: 8n, name: "Edited Fern", tag: "shade" });
      expect(apiRequests.slice(before)).toEqual(["GET /plants/8", "GET /plants/8", "PUT /plants/8"]);
    });

    it("says when someone else changed the plant since it was read (412), and shows the current version", async () => {
      await page.getByRole("button", { name: "Edit Plant 9 (9)" }).click();
      const newName = page.getByLabel("New name", { exact: true });
      const newTag = page.getByLabel("New tag", { exact: true });
      await expect.poll(() => newName.inputValue()).toBe("Plant 9");
      // Behind the page's back.
      const api = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
      await api.updatePlant(9, { name: "Changed elsewhere", tag: "theirs" });
      await newName.fill("My edit");
      await page.getByRole("button", { name: "Save" }).click();
      await expect
        .poll(() => alert().textContent())
        .toBe(
          "Someone else changed Plant 9 (9) while you were editing it; your edit was not saved. " +
            "The current version is shown: Changed elsewhere, tag theirs.",
        );
      await expect.poll(() => newName.inputValue()).toBe("Changed elsewhere");
      expect(await newTag.inputValue()).toBe("theirs");
      expect(await rows().filter({ hasText: "Changed elsewhere" }).locator("td").allTextContents()).toEqual([
        "9",
        "Changed elsewhere",
        "theirs",
        "Edit Delete",
      ]);
      expect(await api.getPlant(9)).toEqual({ id: 9n, name: "Changed elsewhere", tag: "theirs" });

      // Deciding again from the current version: it saves (the form holds the new ETag).
      await newName.fill("My edit");
      await newTag.fill("");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("button", { name: "Edit My edit (9)" }).waitFor();
      expect(await alert().textContent()).toBe("");
      expect(await api.getPlant(9)).toEqual({ id: 9n, name: "My edit" });
    });

    it("deletes a plant from its row, with no dialog", async () => {
      page.on("dialog", (dialog) => problems.push(`dialog: ${dialog.message()}`));
      await page.getByRole("button", { name: `Delete Big Fern (${BIG_ID})` }).click();
      await expect.poll(() => rows().filter({ hasText: "Big Fern" }).count()).toBe(0);
      const gone = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN })
        .getPlant(BIG_ID)
        .catch((error: unknown) => error);
      expect(gone).toMatchObject({ status: 404 });
    });

    it("works from the keyboard alone: add, then delete", async () => {
      for (const field of ["Id", "Name", "Tag"]) await page.getByLabel(field, { exact: true }).fill("");
      await page.getByLabel("Id", { exact: true }).focus();
      await page.keyboard.type("424242");
      await page.keyboard.press("Tab");
      await page.keyboard.type("Keyboard Ivy");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab"); // past Tag, to Add plant
      await page.keyboard.press("Enter");
      const remove = page.getByRole("button", { name: "Delete Keyboard Ivy (424242)" });
      await remove.waitFor();
      await remove.focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => remove.count()).toBe(0);
      // The focus stays in the table, not lost to the document.
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("TABLE");
    });

    it("has no serious or critical accessibility violation (axe-core), connected, editing and after refusals", async () => {
      await page.getByRole("button", { name: "Edit Plant 1 (1)" }).click();
      await page.getByLabel("New name", { exact: true }).waitFor();
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: { run: () => Promise<{ violations: { id: string; impact: string; help: string }[] }> };
          }
        ).axe;
        const result = await axe.run();
        return result.violations.map(({ id, impact, help }) => ({ id, impact, help }));
      });
      expect(violations.filter(({ impact }) => impact === "serious" || impact === "critical")).toEqual([]);
    });

    it("shows a token's missing scope (403) from the server", async () => {
      await page.getByRole("button", { name: "Disconnect" }).click();
      await page.getByLabel("API token").fill(READ_ONLY_TOKEN);
      await page.getByRole("button", { name: "Connect" }).click();
      await expect.poll(() => rows().count()).toBe(50);
      await page.getByLabel("Id", { exact: true }).fill("5001");
      await page.getByLabel("Name", { exact: true }).fill("Not allowed");
      await page.getByRole("button", { name: "Add plant" }).click();
      const expected = await serverMessage(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${READ_ONLY_TOKEN}`, "content-type": "application/json" },
        body: '{"id":5001,"name":"Not allowed"}',
      });
      await expect.poll(() => alert().textContent()).toBe(expected);
    });

    it("had no console error, no uncaught error, no dialog and no request to another origin", async () => {
      await page.screenshot({ path: new URL(`web-app-${backend.name}.png`, RESULTS).pathname, fullPage: true });
      expect(problems).toEqual([]);
    });
  });

  describe("rate-limited", () => {
    let server: DisposableServer;
    beforeAll(async () => {
      server = await startDisposableServer({
        tokens: [TOKEN],
        prefix: "plantstore-web-",
        config: { rateLimit: { quota: 3, windowSeconds: 3600 } },
      });
    });
    afterAll(() => server?.close());

    it("shows a 429 with the server's message and how long to wait", async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${server.url}/`);
        await page.getByLabel("API token").fill(TOKEN);
        await page.getByRole("button", { name: "Connect" }).click(); // request 1
        await page.getByRole("table", { name: "Plants" }).waitFor(); // request 2: the first page
        await page.getByLabel("Id", { exact: true }).fill("1");
        await page.getByLabel("Name", { exact: true }).fill("Fern");
        await page.getByRole("button", { name: "Add plant" }).click(); // request 3
        await page.getByRole("button", { name: "Delete Fern (1)" }).waitFor();
        await page.getByRole("button", { name: "Delete Fern (1)" }).click(); // request 4: refused
        await expect
          .poll(() => page.getByRole("alert").textContent())
          .toMatch(/^rate limit exceeded.* \(try again in \d+ seconds?\)$/i);
      } finally {
        await page.close();
      }
    });
  });
});
