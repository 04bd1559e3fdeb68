import { mkdirSync } from "node:fs";
import { chromiumArgs } from "@plantstore/vitest-config/chromium";
import { chromium, type Browser, type Page } from "playwright-core";

export const TOKEN = "web-test-token-0123456789abcdefghij";
export const READ_ONLY_TOKEN = "web-read-only-token-0123456789abcdef";

/** Where a run keeps what it saw (git-ignored): screenshots of the app. */
export const RESULTS = new URL("../test-results/", import.meta.url);

export function launch(executablePath: string): Promise<Browser> {
  mkdirSync(RESULTS, { recursive: true });
  return chromium.launch({ executablePath, args: chromiumArgs() });
}

/**
 * Everything that went wrong on a page: console errors, uncaught errors, requests to any origin
 * but `origin`, requests that failed. Chromium also reports each answer with a 4xx or 5xx status on the console
 * ("Failed to load resource"); those are the refusals the tests provoke and check one by one, so
 * they are not counted here.
 */
export function watch(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource: the server responded"))
      problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol !== "data:" && url.origin !== origin) problems.push(`request to another origin: ${request.url()}`);
  });
  // A request the page aborted itself (a search typed on, a view left before its answer) is the
  // page's choice, not a failure; the tests that need it check the abort itself.
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText;
    if (reason !== "net::ERR_ABORTED") problems.push(`failed: ${request.url()} ${reason}`);
  });
  return problems;
}
