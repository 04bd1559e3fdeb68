import { createPlantStoreClient } from "@plantstore/client";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { chromiumTool } from "@plantstore/vitest-config/chromium";
import { describeWith } from "@plantstore/vitest-config/optional";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../../server/src/test-support/databases.js";
import { launch, READ_ONLY_TOKEN, TOKEN, watch } from "./support.js";

const BIG_ID = 2n ** 53n + 1n; // 9007199254740993: a number would read it as ...992

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
    const outcome = () => page.getByRole("status", { name: "Outcome" });

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
        // The count of the view (GET /plants?limit=1&count=true, asked again after each change) apart.
        if (url.pathname.startsWith("/plants") && url.searchParams.get("count") !== "true")
          apiRequests.push(`${request.method()} ${url.pathname}${url.search}`);
      });
    });
    afterAll(async () => {
      await page?.context().close();
      await server?.close();
      await backend.cleanup();
    });

    /** The input labelled `label`, with what is said beside it (its aria-describedby), and whether it is marked invalid. */
    async function fieldState(label: string): Promise<{ invalid: string | null; beside: string }> {
      const input = page.getByLabel(label, { exact: true });
      const invalid = await input.getAttribute("aria-invalid");
      const describedBy = await input.getAttribute("aria-describedby");
      const beside = describedBy === null ? "" : ((await page.locator(`#${describedBy}`).textContent()) ?? "");
      return { invalid, beside };
    }

    it("says how to get a token, and refuses an empty one with the reason, beside the field, sending nothing", async () => {
      await page.goto(`${server.url}/`);
      const connect = page.getByRole("region", { name: "Connect to this store" });
      expect(await connect.textContent()).toContain("npm run tokens -- create");
      expect(await connect.textContent()).toContain("first-run token");
      const before = apiRequests.length;
      await page.getByRole("button", { name: "Connect" }).click();
      const reason = "API token: paste a token first (see above for how to get one).";
      await expect.poll(() => alert().textContent()).toBe(reason);
      expect(await fieldState("API token")).toEqual({ invalid: "true", beside: reason });
      expect(apiRequests.slice(before)).toEqual([]);
    });

    it("shows a refused token's message from the server beside the field, and keeps the token out of URLs and localStorage", async () => {
      await page.getByLabel("API token").fill("not-a-known-token-0000");
      await page.getByRole("button", { name: "Connect" }).click();
      const expected = await serverMessage(server.url, { headers: { authorization: "Bearer not-a-known-token-0000" } });
      await expect.poll(() => alert().textContent()).toBe(expected);
      expect(await fieldState("API token")).toEqual({ invalid: "true", beside: expected });
      expect(await page.getByRole("table", { name: "Plants" }).count()).toBe(0);
    });

    it("connects, and shows the first page in ascending id order with Load more", async () => {
      await page.getByLabel("API token").fill(TOKEN);
      await page.getByRole("button", { name: "Connect" }).click();
      await expect.poll(() => rows().count()).toBe(50);
      const ids = await rows().locator("td:first-child").allTextContents();
      expect(ids).toEqual(Array.from({ length: 50 }, (_, index) => String(index + 1)));
      expect(await page.getByRole("columnheader").allInnerTexts()).toEqual(["Id ↑", "Name", "Tag", "Actions"]);
      expect(await page.getByRole("columnheader", { name: "Id" }).getAttribute("aria-sort")).toBe("ascending");
      expect(await alert().textContent()).toBe("");
      expect(await outcome().textContent()).toBe("Connected.");
      // The token lives in this tab's sessionStorage only.
      expect(page.url()).not.toContain(TOKEN);
      expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(TOKEN);
      expect(await page.evaluate(() => JSON.stringify(sessionStorage))).toContain(TOKEN);
    });

    it("loads more while the server's Link says more follow", async () => {
      await expect.poll(() => page.getByText("50 of 60 plants shown; Load more for the next.").count()).toBe(1);
      await page.getByRole("button", { name: "Load more" }).click();
      await expect.poll(() => rows().count()).toBe(60);
      await expect.poll(() => page.getByRole("button", { name: "Load more" }).count()).toBe(0);
      await expect.poll(() => page.getByText("60 of 60 plants shown.").count()).toBe(1);
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

    /** The `name` of every list request made since `from` (undefined: none was sent). */
    const namesAsked = (from: number) =>
      apiRequests
        .slice(from)
        .filter((request) => request.startsWith("GET /plants?"))
        .map((request) => new URLSearchParams(request.slice(request.indexOf("?"))).get("name") ?? undefined);
    const shownIds = () => rows().locator("td:first-child").allTextContents();

    it("finds plants by name prefix in any case as you type, with the tag too, asking once typing pauses", async () => {
      const before = apiRequests.length;
      const search = page.getByLabel("Search by name");
      await search.focus();
      await page.keyboard.type("pLaNt 1"); // seven keys, typed without a pause
      await expect.poll(shownIds).toEqual(["1", ...Array.from({ length: 10 }, (_, index) => String(10 + index))]);
      const asked = namesAsked(before);
      // Debounced: fewer requests than keys (one, unless the machine paused the typing), the last for all of it.
      expect(asked.length, asked.join(", ")).toBeLessThan(7);
      expect(asked.at(-1)).toBe("pLaNt 1");
      await expect.poll(() => page.getByText("11 of 11 plants shown.").count()).toBe(1);

      await page.getByLabel("Filter by tag").fill("tropical");
      await page.getByLabel("Filter by tag").press("Enter");
      await expect.poll(shownIds).toEqual(["10"]);
      const last = apiRequests.at(-1)!;
      expect(new URLSearchParams(last.slice(last.indexOf("?"))).get("tag")).toBe("tropical");

      await search.fill("no plant is called this");
      await search.press("Enter");
      await expect.poll(() => page.getByText("No plant matches.").count()).toBe(1);
      await search.fill("");
      await page.getByLabel("Filter by tag").fill("");
      await search.press("Enter");
      await expect.poll(() => rows().count()).toBe(60);
    });

    it("cancels the request of a search typed on before it was answered (AbortSignal)", async () => {
      // The answer to "Plant 2" is held until the page has moved on to "Plant 25".
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let seen!: () => void;
      const asked = new Promise<void>((resolve) => (seen = resolve));
      const matches = (url: URL) =>
        url.pathname === "/plants" && url.searchParams.get("name") === "Plant 2" && !url.searchParams.has("count");
      await page.route(matches, async (route) => {
        seen();
        await held;
        await route.continue().catch(() => undefined); // the page has aborted it: nothing to continue
      });
      const aborted = new Promise<string>((resolve) =>
        page.on("requestfailed", (request) => {
          if (matches(new URL(request.url()))) resolve(request.failure()?.errorText ?? "");
        }),
      );
      const search = page.getByLabel("Search by name");
      await search.fill("Plant 2");
      await search.press("Enter");
      await asked;
      await search.fill("Plant 25");
      await search.press("Enter");
      expect(await aborted).toBe("net::ERR_ABORTED");
      release();
      await page.unroute(matches);
      await expect.poll(shownIds).toEqual(["25"]);
      await search.fill("");
      await search.press("Enter");
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
        "EditDelete",
      ]);
      await expect.poll(() => outcome().textContent()).toBe(`Added: Big Fern (${BIG_ID}).`);
      const stored = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN }).getPlant(BIG_ID);
      expect(stored).toEqual({ id: BIG_ID, name: "Big Fern", tag: "huge" });
      expect(apiRequests.filter((request) => request === "POST /plants")).toHaveLength(1);
    });

    it("sorts by id, descending and back, from the Id column's header", async () => {
      const sort = page.getByRole("button", { name: "Id", exact: true });
      const header = page.getByRole("columnheader", { name: "Id" });
      await sort.click();
      await expect.poll(() => header.getAttribute("aria-sort")).toBe("descending");
      await expect.poll(async () => (await shownIds()).slice(0, 3)).toEqual([String(BIG_ID), "60", "59"]);
      const last = apiRequests.at(-1)!;
      expect(new URLSearchParams(last.slice(last.indexOf("?"))).get("order")).toBe("desc");
      // The next page goes on downwards.
      await page.getByRole("button", { name: "Load more" }).click();
      await expect.poll(() => rows().count()).toBe(61);
      expect(await shownIds()).toEqual([
        String(BIG_ID),
        ...Array.from({ length: 60 }, (_, index) => String(60 - index)),
      ]);
      await sort.click();
      await expect.poll(() => header.getAttribute("aria-sort")).toBe("ascending");
      await expect.poll(async () => (await shownIds()).slice(0, 3)).toEqual(["1", "2", "3"]);
    });

    it("refuses an invalid plant in the page, beside the field and announced, sending nothing; the next try clears it", async () => {
      const before = apiRequests.length;
      await page.getByLabel("Id", { exact: true }).fill("9223372036854775808"); // 2^63: outside int64
      await page.getByLabel("Name", { exact: true }).fill("Too big");
      await page.getByRole("button", { name: "Add plant" }).click();
      const idReason = "Id: must be between -2^63 and 2^63-1 (int64)";
      await expect.poll(() => alert().textContent()).toBe(idReason);
      expect(await outcome().textContent()).toBe("");
      expect(await fieldState("Id")).toEqual({ invalid: "true", beside: idReason });
      expect(await fieldState("Name")).toEqual({ invalid: null, beside: "" });
      // The focus is on the field to fix.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("add-id");

      await page.getByLabel("Id", { exact: true }).fill("5000");
      await page.getByLabel("Name", { exact: true }).fill("");
      await page.getByRole("button", { name: "Add plant" }).click();
      await expect.poll(() => alert().textContent()).toMatch(/^Name: /);
      expect(await fieldState("Id")).toEqual({ invalid: null, beside: "" });
      expect(await fieldState("Name")).toEqual({ invalid: "true", beside: await alert().textContent() });
      expect(apiRequests.slice(before)).toEqual([]);
    });

    it("shows the server's message for a 409 conflict beside the Id", async () => {
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
      expect(await fieldState("Id")).toEqual({ invalid: "true", beside: expected });
      expect(await rows().filter({ hasText: "Not plant 7" }).count()).toBe(0);
    });

    it("clears the last outcome with each action: filtering, opening an edit, Load more", async () => {
      // The 409 of the last test is on screen; filtering is a new moment.
      expect(await alert().textContent()).not.toBe("");
      await page.getByLabel("Filter by tag").fill("nothing-has-this-tag");
      await page.getByLabel("Filter by tag").press("Enter");
      await expect.poll(() => page.getByText("No plant matches.").count()).toBe(1);
      expect(await alert().textContent()).toBe("");
      expect(await fieldState("Id")).toEqual({ invalid: null, beside: "" });
      await page.getByLabel("Filter by tag").fill("");
      await page.getByLabel("Filter by tag").press("Enter");
      await expect.poll(() => rows().count()).toBe(61);

      await page.getByRole("button", { name: "Add plant" }).click(); // the same 409 again
      await expect.poll(() => alert().textContent()).not.toBe("");
      await page.getByRole("button", { name: "Edit Plant 2 (2)" }).click();
      await page.getByLabel("New name", { exact: true }).waitFor();
      expect(await alert().textContent()).toBe("");
      await page.getByLabel("New name", { exact: true }).press("Escape");
    });

    it("edits a plant in its row: Escape cancels, Enter saves, checked before sending, the focus stays on the row", async () => {
      const before = apiRequests.length;
      const row = rows().filter({ has: page.getByRole("cell", { name: "8", exact: true }) });
      await page.getByRole("button", { name: "Edit Plant 8 (8)" }).click();
      const newName = page.getByLabel("New name", { exact: true });
      const newTag = page.getByLabel("New tag", { exact: true });
      await expect.poll(() => newName.inputValue()).toBe("Plant 8");
      // The row itself is the form, with the focus in its first field.
      expect(await row.getByLabel("New name", { exact: true }).count()).toBe(1);
      expect(await row.getByRole("button", { name: "Save" }).count()).toBe(1);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("edit-name");
      await page.keyboard.press("Escape");
      await expect.poll(() => newName.count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Edit Plant 8 (8)");

      await page.keyboard.press("Enter");
      await expect.poll(() => newName.inputValue()).toBe("Plant 8");
      await newName.fill("");
      await newName.press("Enter");
      await expect.poll(() => alert().textContent()).toMatch(/^Name: /);
      expect(await fieldState("New name")).toEqual({ invalid: "true", beside: await alert().textContent() });
      expect(apiRequests.slice(before)).toEqual(["GET /plants/8", "GET /plants/8"]);

      await newName.fill("Edited Fern");
      await newTag.fill("shade");
      await newTag.press("Enter");
      await page.getByRole("button", { name: "Edit Edited Fern (8)" }).waitFor();
      expect(await rows().filter({ hasText: "Edited Fern" }).locator("td").allTextContents()).toEqual([
        "8",
        "Edited Fern",
        "shade",
        "EditDelete",
      ]);
      await expect.poll(() => outcome().textContent()).toBe("Saved Edited Fern (8).");
      expect(await alert().textContent()).toBe("");
      expect(await newName.count()).toBe(0);
      // Back on the row's Edit button.
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
        "Edit Edited Fern (8)",
      );
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
      expect(await api.getPlant(9)).toEqual({ id: 9n, name: "Changed elsewhere", tag: "theirs" });

      // Deciding again from the current version: it saves (the form holds the new ETag).
      await newName.fill("My edit");
      await newTag.fill("");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("button", { name: "Edit My edit (9)" }).waitFor();
      expect(await alert().textContent()).toBe("");
      expect(await api.getPlant(9)).toEqual({ id: 9n, name: "My edit" });
    });

    it("asks before deleting, naming the plant: Keep and Escape keep it, Delete deletes it", async () => {
      page.on("dialog", (dialog) => problems.push(`dialog: ${dialog.message()}`));
      const before = apiRequests.length;
      const askDelete = page.getByRole("button", { name: `Delete Big Fern (${BIG_ID})` });
      const keep = page.getByRole("button", { name: `Keep Big Fern (${BIG_ID})` });
      await askDelete.click();
      expect(await page.getByText(`Delete Big Fern (${BIG_ID})? This cannot be undone.`).count()).toBe(1);
      // The safe answer has the focus: Enter twice deletes nothing.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
        .toBe(`Keep Big Fern (${BIG_ID})`);
      await keep.click();
      await expect.poll(() => keep.count()).toBe(0);
      await askDelete.click();
      await keep.waitFor();
      await page.keyboard.press("Escape");
      await expect.poll(() => keep.count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
        `Delete Big Fern (${BIG_ID})`,
      );
      expect(apiRequests.slice(before)).toEqual([]);

      await askDelete.click();
      await page.getByRole("button", { name: `Yes, delete Big Fern (${BIG_ID})` }).click();
      await expect.poll(() => rows().filter({ hasText: "Big Fern" }).count()).toBe(0);
      await expect.poll(() => outcome().textContent()).toBe(`Deleted Big Fern (${BIG_ID}).`);
      const gone = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN })
        .getPlant(BIG_ID)
        .catch((error: unknown) => error);
      expect(gone).toMatchObject({ status: 404 });
      expect(apiRequests.slice(before)).toEqual([`DELETE /plants/${BIG_ID}`]);
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
      const askDelete = page.getByRole("button", { name: "Delete Keyboard Ivy (424242)" });
      await askDelete.waitFor();
      // Ready for the next plant: the focus is back in the first field.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("add-id");
      await askDelete.focus();
      await page.keyboard.press("Enter"); // asks; the focus is on Keep
      await page.getByRole("button", { name: "Keep Keyboard Ivy (424242)" }).waitFor();
      await page.keyboard.press("Shift+Tab"); // to Yes, delete
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().filter({ hasText: "Keyboard Ivy" }).count()).toBe(0);
      // Its own delete, whichever came first of its answer and its event on the change stream: never
      // "someone else deleted it" (that message once replaced this one when the event came second).
      await expect.poll(() => outcome().textContent()).toBe("Deleted Keyboard Ivy (424242).");
      expect(await alert().textContent()).toBe("");
      // The focus stays in the table, not lost to the document.
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("TABLE");
    });

    it("clears every message on Disconnect, then shows a token's missing scope (403) from the server", async () => {
      await expect.poll(() => outcome().textContent()).toBe("Deleted Keyboard Ivy (424242).");
      await page.getByRole("button", { name: "Disconnect" }).click();
      await page.getByLabel("API token").waitFor();
      expect(await alert().textContent()).toBe("");
      expect(await outcome().textContent()).toBe("");
      expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(TOKEN);

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

    it("had no console error, no uncaught error, no dialog and no request to another origin", () => {
      expect(problems.join("\n")).toBe("");
    });
  });

  describe("from the keyboard alone", () => {
    let server: DisposableServer;
    let page: Page;
    let problems: string[];
    beforeAll(async () => {
      server = await startDisposableServer({ tokens: [TOKEN], prefix: "plantstore-web-keys-" });
      const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
      for (let id = 1; id <= 55; id++) await client.createPlant({ id, name: `Plant ${id}` });
      page = await browser.newPage();
      problems = watch(page, new URL(server.url).origin);
    });
    afterAll(async () => {
      await page?.close();
      await server?.close();
    });

    /** What has the focus: its accessible name as the tests use it (aria-label, label, or text). */
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (element === null) return "";
        const label = element.id === "" ? null : document.querySelector(`label[for="${element.id}"]`);
        // Text as read aloud: without what is aria-hidden (the sort arrow).
        const text = element.cloneNode(true) as HTMLElement;
        for (const hidden of text.querySelectorAll("[aria-hidden=true]")) hidden.remove();
        return element.getAttribute("aria-label") ?? label?.textContent ?? text.textContent ?? "";
      });
    /** Presses Tab (or Shift+Tab) until `name` has the focus: what a person does, without a mouse. */
    async function tabTo(name: string, key = "Tab") {
      for (let presses = 0; presses < 250; presses++) {
        if ((await focused()) === name) return;
        await page.keyboard.press(key);
      }
      throw new Error(`${key} never reached ${name} (the focus is on ${await focused()})`);
    }
    const rows = () => page.getByRole("table", { name: "Plants" }).locator("tbody tr");

    it("connects, loads more, sorts, finds, edits and deletes with Tab, Enter, Escape and typing", async () => {
      await page.goto(`${server.url}/`);
      await tabTo("API token");
      await page.keyboard.press("Enter"); // empty: refused, the focus stays in the field
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^API token: /);
      await page.keyboard.type(TOKEN);
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().count()).toBe(50);

      await tabTo("Load more");
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().count()).toBe(55);

      await tabTo("Id", "Shift+Tab");
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().locator("td:first-child").first().textContent()).toBe("55");
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().locator("td:first-child").first().textContent()).toBe("1");

      await tabTo("Search by name", "Shift+Tab");
      await page.keyboard.type("plant 3");
      await expect.poll(() => rows().count()).toBe(11); // 3, 30–39

      await tabTo("Edit Plant 31 (31)");
      await page.keyboard.press("Enter");
      await expect.poll(focused).toBe("New name");
      await page.keyboard.press("Escape");
      await expect.poll(focused).toBe("Edit Plant 31 (31)");
      await page.keyboard.press("Enter");
      await expect.poll(focused).toBe("New name");
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Plant 31 renamed");
      await page.keyboard.press("Enter");
      await expect.poll(focused).toBe("Edit Plant 31 renamed (31)");
      await expect
        .poll(() => page.getByRole("status", { name: "Outcome" }).textContent())
        .toBe("Saved Plant 31 renamed (31).");

      await page.keyboard.press("Tab");
      expect(await focused()).toBe("Delete Plant 31 renamed (31)");
      await page.keyboard.press("Enter");
      await expect.poll(focused).toBe("Keep Plant 31 renamed (31)");
      await page.keyboard.press("Enter"); // Keep: nothing deleted, back on Delete
      await expect.poll(focused).toBe("Delete Plant 31 renamed (31)");
      await page.keyboard.press("Enter");
      await expect.poll(focused).toBe("Keep Plant 31 renamed (31)");
      await page.keyboard.press("Shift+Tab");
      expect(await focused()).toBe("Yes, delete Plant 31 renamed (31)");
      await page.keyboard.press("Enter");
      await expect.poll(() => rows().count()).toBe(10);
      const gone = await createPlantStoreClient({ baseUrl: server.url, token: TOKEN })
        .getPlant(31)
        .catch((error: unknown) => error);
      expect(gone).toMatchObject({ status: 404 });
      expect(problems.join("\n")).toBe("");
    });
  });

  describe("rate-limited", () => {
    let server: DisposableServer;
    beforeAll(async () => {
      server = await startDisposableServer({
        tokens: [TOKEN],
        prefix: "plantstore-web-",
        config: { rateLimit: { quota: 2, windowSeconds: 3600 } },
      });
    });
    afterAll(() => server?.close());

    it("shows a 429 with the server's message and how long to wait", async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${server.url}/`);
        await page.getByLabel("API token").fill(TOKEN);
        await page.getByRole("button", { name: "Connect" }).click(); // request 1 of 2
        await page.getByRole("table", { name: "Plants" }).waitFor();
        // The page's own reads (the list, its count, the change stream) take the second; a search
        // makes sure that a list read is refused, whichever of them came first.
        await page.getByLabel("Search by name").fill("Fern");
        await page.getByLabel("Search by name").press("Enter");
        // The server's message says how long to wait; the page says it once (not again after it).
        await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^rate limit exceeded/i);
        const message = (await page.getByRole("alert").textContent()) ?? "";
        expect(message.match(/\d+/g), message).toHaveLength(1);
      } finally {
        await page.close();
      }
    });
  });
});
