import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@plantstore/server";
import { afterAll, describe, expect, it } from "vitest";
import { fillLargeStore } from "./large-store.js";
import { LARGE_STORE_FIRST_ID, listDeepAfter } from "./scenarios.js";

const workDir = mkdtempSync(join(tmpdir(), "bench-large-store-test-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("fillLargeStore", () => {
  it("fills the server's own schema: the server serves the plants, and list-deep's page is deep and full", async () => {
    const databaseUrl = `sqlite:${join(workDir, "large.db")}`;
    const token = "large-store-test-token-0123456789";
    const config = { host: "127.0.0.1", port: 0, databaseUrl, tokens: [token], logLevel: "silent" as const };
    await (await startServer(config)).close(); // the server makes its schema
    fillLargeStore(join(workDir, "large.db"), 1000);
    const server = await startServer(config);
    try {
      const after = listDeepAfter(1000);
      const response = await fetch(`${server.url}/plants?limit=100&after=${after}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text.startsWith(`[{"id":${after + 1},"name":"Plant 901"`)).toBe(true);
      expect(text).toContain(`{"id":${LARGE_STORE_FIRST_ID + 999},"name":"Plant 999"}`);
      expect(text.match(/"id":/g)).toHaveLength(99); // 901 … 999: the last page of the thousand
    } finally {
      await server.close();
    }
  });
});
