import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { TEST_TOKEN } from "../test-support/test-server.js";

const LINES = 500;
const QUOTA = 50;
/** Metrics are read with a token of their own: the importing token's windows are spent. */
const METRICS_TOKEN = "cli-metrics-token-0123456789abcdef";

let server: DisposableServer;
beforeAll(async () => {
  server = await startDisposableServer({
    tokens: [TEST_TOKEN, `${METRICS_TOKEN}:metrics:read`],
    prefix: "plantstore-cli-ratelimit-",
    config: { rateLimit: { quota: QUOTA, windowSeconds: 1 } },
  });
});
afterAll(async () => {
  await server?.close();
});

/** The server's own count of 429s, from its metrics (read with a token whose windows are not spent). */
async function rateLimitedCount(): Promise<number> {
  const answer = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await answer.text();
  return Number(/^plantstore_rate_limited_requests_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe("plantstore import against a rate limit", () => {
  it(`imports ${LINES.toLocaleString("en")} lines at ${QUOTA}/1s: every plant created, no error, the 429s waited out`, async () => {
    const path = join(server.directory, "big.csv");
    writeFileSync(
      path,
      ["id,name,tag", ...Array.from({ length: LINES }, (_, i) => `${i + 1},Plant ${i + 1},t`)].join("\n"),
    );

    const started = Date.now();
    const run = await runCli(["import", path], { PLANTSTORE_URL: server.url, PLANTSTORE_TOKEN: TEST_TOKEN });
    const seconds = (Date.now() - started) / 1000;

    expect(run.code).toBe(0);
    // Standard error holds progress lines only: no failed line, no warning.
    expect(run.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("progress: "))).toEqual([]);
    expect(run.stdout).toMatch(new RegExp(`created\\s+${LINES}\\n`));
    expect(await server.storage.plants.count()).toBe(LINES);
    // The limit was really hit and waited out: 500 creates need at least 10 windows of 50 (a quota
    // far below what even a loaded machine imports, so the 429s come whatever the speed).
    expect(await rateLimitedCount()).toBeGreaterThan(0);
    expect(seconds).toBeGreaterThanOrEqual((LINES / QUOTA - 1) * 0.9);
  }, 120_000);
});
