import { createPlantStoreClient, type PlantStoreClient } from "@plantstore/client";
import { startServer, type RunningServer } from "@plantstore/server";
import { chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../../server/src/test-support/databases.js";
import { launch, TOKEN, watch } from "./support.js";

const LIVE = "Live: changes appear as they happen";
const RECONNECTING = "Reconnecting to live changes…";

describeWith(chromiumTool(), "the web app following the change stream, in two browser contexts", (executablePath) => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch(executablePath);
  });
  afterAll(() => browser?.close());

  describe.each(testBackends())("on $name", (backend) => {
    let databaseUrl: string;
    let server: RunningServer | undefined;
    let api: PlantStoreClient;
    const contexts: BrowserContext[] = [];
    let mine: Page; // the tab that acts
    let theirs: Page; // the tab that watches
    const problems: string[] = [];
    /** The API requests the watching tab made. */
    const theirReads: string[] = [];

    const start = (port: number) =>
      startServer({ port, databaseUrl, tokens: [TOKEN], logLevel: "silent" }).then((running) => (server = running));
    const ids = (page: Page) =>
      page.getByRole("table", { name: "Plants" }).locator("tbody tr td:first-child").allTextContents();
    const live = (page: Page) => page.getByRole("status", { name: "Live updates" }).textContent();

    async function openTab(): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      const seen = watch(page, new URL(server!.url).origin);
      // The stream cut by the server's restart, and the reconnects refused while it is down, are
      // what this suite does on purpose: not problems.
      const expected = (problem: string) =>
        problem.includes("/plants/changes") || problem.includes("net::ERR_CONNECTION_REFUSED");
      page.on("close", () => problems.push(...seen.filter((problem) => !expected(problem))));
      await page.goto(`${server!.url}/`);
      await page.getByLabel("API token").fill(TOKEN);
      await page.getByRole("button", { name: "Connect" }).click();
      await page.getByRole("status", { name: "Live updates" }).getByText(LIVE).waitFor();
      return page;
    }

    beforeAll(async () => {
      databaseUrl = await backend.freshDatabaseUrl();
      await start(0);
      api = createPlantStoreClient({ baseUrl: server!.url, token: TOKEN });
      // Even ids 2 … 120: the first page (50) ends at 100.
      for (let id = 2; id <= 120; id += 2) await api.createPlant({ id, name: `Plant ${id}` });
      mine = await openTab();
      theirs = await openTab();
      theirs.on("request", (request) => {
        const url = new URL(request.url());
        // Reads of the list (the count, asked again after each change, is one small request apart).
        if (url.pathname.startsWith("/plants") && url.searchParams.get("count") !== "true")
          theirReads.push(`${request.method()} ${url.pathname}${url.search}`);
      });
    });
    afterAll(async () => {
      for (const context of contexts) await context.close();
      await server?.close();
      await backend.cleanup();
    });

    it("shows another tab's add in id order, its edit and its delete, without a reload", async () => {
      expect((await ids(theirs)).slice(0, 3)).toEqual(["2", "4", "6"]);
      const before = theirReads.length;
      await mine.getByLabel("Id", { exact: true }).fill("51");
      await mine.getByLabel("Name", { exact: true }).fill("Added in my tab");
      await mine.getByRole("button", { name: "Add plant" }).click();
      await expect.poll(async () => (await ids(theirs)).slice(24, 27)).toEqual(["50", "51", "52"]);

      await mine.getByRole("button", { name: "Edit Plant 20 (20)" }).click();
      await mine.getByLabel("New name", { exact: true }).fill("Renamed in my tab");
      await mine.getByLabel("New name", { exact: true }).press("Enter");
      await theirs.getByRole("button", { name: "Edit Renamed in my tab (20)" }).waitFor();

      await mine.getByRole("button", { name: "Delete Plant 30 (30)" }).click();
      await mine.getByRole("button", { name: "Yes, delete Plant 30 (30)" }).click();
      await expect.poll(async () => (await ids(theirs)).includes("30")).toBe(false);
      // Nothing was read again to show them: the changes came by the stream.
      expect(theirReads.slice(before)).toEqual([]);
      expect(await theirs.getByRole("alert").textContent()).toBe("");
    });

    it("leaves a new plant beyond the loaded pages to the page that holds it", async () => {
      await api.createPlant({ id: 111, name: "Beyond the first page" });
      await api.createPlant({ id: 53, name: "Within the first page" });
      await expect.poll(async () => (await ids(theirs)).includes("53")).toBe(true);
      expect(await ids(theirs)).not.toContain("111");
      await theirs.getByRole("button", { name: "Load more" }).click();
      await expect.poll(async () => (await ids(theirs)).at(-1)).toBe("120");
      const shown = await ids(theirs);
      expect(shown.filter((id) => id === "111")).toHaveLength(1);
      expect(shown.map(BigInt)).toEqual([...shown.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    });

    it("says so when the plant of an open edit form is changed, then deleted, by someone else", async () => {
      await theirs.getByRole("button", { name: "Edit Plant 4 (4)" }).click();
      await theirs.getByLabel("New name", { exact: true }).fill("Their edit");
      await api.updatePlant(4, { name: "Changed meanwhile", tag: "elsewhere" });
      await expect
        .poll(() => theirs.getByRole("alert").textContent())
        .toBe(
          "Someone else changed Plant 4 (4) while you are editing it: it is now Changed meanwhile, tag elsewhere. " +
            "Saving will show you their version first; it will not overwrite it.",
        );
      // What they typed is kept; saving meets the 412 flow, and nothing of the other change is lost.
      expect(await theirs.getByLabel("New name", { exact: true }).inputValue()).toBe("Their edit");
      await theirs.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => theirs.getByRole("alert").textContent()).toMatch(/^Someone else changed Plant 4 \(4\)/);
      await expect.poll(() => theirs.getByLabel("New name", { exact: true }).inputValue()).toBe("Changed meanwhile");
      expect(await api.getPlant(4)).toEqual({ id: 4n, name: "Changed meanwhile", tag: "elsewhere" });

      await api.deletePlant(4);
      await expect
        .poll(() => theirs.getByRole("alert").textContent())
        .toBe("Someone else deleted Changed meanwhile (4) while you were editing it; there is nothing left to save.");
      expect(await theirs.getByLabel("New name", { exact: true }).count()).toBe(0);
      expect(await ids(theirs)).not.toContain("4");
    });

    it("shows when it is reconnecting, and catches up with what changed meanwhile", async () => {
      const port = Number(new URL(server!.url).port);
      await server!.close();
      server = undefined;
      await expect.poll(() => live(theirs)).toBe(RECONNECTING);
      await start(port);
      // Committed before the page is back: it arrives all the same (the client resumes from its cursor).
      await createPlantStoreClient({ baseUrl: server!.url, token: TOKEN }).createPlant({ id: 57, name: "While away" });
      await expect.poll(() => live(theirs), { timeout: 30_000 }).toBe(LIVE);
      await expect.poll(async () => (await ids(theirs)).includes("57"), { timeout: 30_000 }).toBe(true);
      expect((await ids(theirs)).filter((id) => id === "57")).toHaveLength(1);
    });

    it("had no console error, no uncaught error and no request to another origin", async () => {
      for (const page of [mine, theirs]) await page.close();
      expect(problems).toEqual([]);
    });
  });
});
