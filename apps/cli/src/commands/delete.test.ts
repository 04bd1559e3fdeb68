import { startFlakyProxy } from "@plantstore/client/testing";
import { parseExactJson } from "@plantstore/contract";
import { describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { TEST_TOKEN, useTestServer } from "../test-support/test-server.js";

const context = useTestServer();
const run = (...args: string[]) => runCli(args, context.env());
const stored = (id: bigint) => context.server.storage.plants.find(id);

describe("plantstore delete", () => {
  it("deletes the plant (exit 0); deleting it again is not found (exit 1)", async () => {
    await context.server.storage.plants.create({ id: 7n, name: "Fern" });
    expect(await run("delete", "7")).toMatchObject({ code: 0, stdout: "deleted plant 7\n", stderr: "" });
    expect(await stored(7n)).toBeUndefined();
    expect(await run("delete", "7")).toMatchObject({ code: 1, stdout: "", stderr: "plantstore: no plant has id 7\n" });
  });

  it("deletes exactly the plant with the id: 2^53+1, -2^63 and 2^63-1, neighbours untouched", async () => {
    const ids = [2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n];
    const neighbours = [2n ** 53n, 2n ** 53n + 2n, -(2n ** 63n) + 1n, 2n ** 63n - 2n];
    for (const id of [...ids, ...neighbours]) await context.server.storage.plants.create({ id, name: `P ${id}` });
    for (const id of ids)
      expect(await run("delete", String(id))).toMatchObject({ code: 0, stdout: `deleted plant ${id}\n` });
    for (const id of ids) expect(await stored(id)).toBeUndefined();
    for (const id of neighbours) expect(await stored(id)).toEqual({ id, name: `P ${id}` });
  });

  it("answers exact JSON with --json", async () => {
    await context.server.storage.plants.create({ id: 9007199254740995n, name: "Odd" });
    const result = await run("--json", "delete", "9007199254740995");
    expect(result).toMatchObject({ code: 0, stdout: '{"id":9007199254740995,"outcome":"deleted","attempts":1}\n' });
    const missing = await run("--json", "delete", "9007199254740995");
    expect(missing.code).toBe(1);
    expect(parseExactJson(missing.stdout)).toMatchObject({
      id: 9007199254740995n,
      error: { codeName: "PLANT_NOT_FOUND" },
    });
  });

  it("exits 0 when a retry finds the plant gone after a first attempt whose answer was lost", async () => {
    const id = 4_000_001n;
    await context.server.storage.plants.create({ id, name: "Lost answer" });
    // The proxy passes the first delete on and cuts the connection when the server answers it.
    const proxy = await startFlakyProxy(context.server.url, [{ kind: "lose-answer" }]);
    try {
      const result = await runCli(["delete", String(id), "--json"], {
        PLANTSTORE_URL: proxy.url,
        PLANTSTORE_TOKEN: TEST_TOKEN,
      });
      expect(result).toMatchObject({ code: 0, stdout: `{"id":${id},"outcome":"unknown","attempts":2}\n` });
    } finally {
      await proxy.close();
    }
    expect(await stored(id)).toBeUndefined();
  });

  it("says so in words when the outcome is unknown", async () => {
    const id = 4_000_002n;
    await context.server.storage.plants.create({ id, name: "Lost answer" });
    const proxy = await startFlakyProxy(context.server.url, [{ kind: "lose-answer" }]);
    try {
      const result = await runCli(["delete", String(id)], { PLANTSTORE_URL: proxy.url, PLANTSTORE_TOKEN: TEST_TOKEN });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `plant ${id} is gone: an earlier attempt whose answer was lost may have deleted it (2 attempts)\n`,
      );
    } finally {
      await proxy.close();
    }
  });

  it("refuses a bad id with exit code 2 and a missing id with the usage", async () => {
    expect(await run("delete", "seven")).toMatchObject({
      code: 2,
      stderr: 'plantstore: not a valid id: must be an integer, not "seven"\n',
    });
    const missing = await run("delete");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'id'");
  });
});
