import { parseExactJson } from "@plantstore/contract";
import { describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { useTestServer } from "../test-support/test-server.js";

const context = useTestServer();
const cli = (...args: string[]) => runCli(args, context.env());
const stored = (id: bigint) => context.server.storage.plants.find(id);

describe("plantstore update", () => {
  it("sets the name and tag, keeps the tag without --tag, removes it with --no-tag, every digit of the id kept", async () => {
    const id = 2n ** 53n + 101n;
    await context.server.storage.plants.create({ id, name: "Fern", tag: "indoor" });

    expect(await cli("update", String(id), "--name", "Boston fern")).toMatchObject({
      code: 0,
      stdout: `updated plant ${id}: Boston fern (indoor)\n`,
      stderr: "",
    });
    expect(await stored(id)).toEqual({ id, name: "Boston fern", tag: "indoor" });

    expect((await cli("update", String(id), "--name", "Boston fern", "--tag", "shade")).code).toBe(0);
    expect(await stored(id)).toEqual({ id, name: "Boston fern", tag: "shade" });

    const json = await cli("--json", "update", String(id), "--name", "Fern", "--no-tag");
    expect(json.code).toBe(0);
    expect(parseExactJson(json.stdout)).toMatchObject({ id, plant: { id, name: "Fern" }, etag: expect.any(String) });
    expect(await stored(id)).toEqual({ id, name: "Fern" });
  });

  it("says in one line that no plant has the id, with exit code 1, and creates nothing", async () => {
    const run = await cli("update", "123456789", "--name", "Ghost", "--tag", "x");
    expect(run).toMatchObject({ code: 1, stdout: "", stderr: "plantstore: no plant has id 123456789\n" });
    expect(await stored(123456789n)).toBeUndefined();
  });

  it("refuses an invalid name or id with exit code 2, before sending", async () => {
    const id = 2n ** 53n + 102n;
    await context.server.storage.plants.create({ id, name: "Moss" });
    expect((await cli("update", String(id), "--name", "", "--no-tag")).code).toBe(2);
    expect((await cli("update", "abc", "--name", "x")).code).toBe(2);
    expect((await cli("update", String(id))).code).toBe(2); // --name is required
    expect(await stored(id)).toEqual({ id, name: "Moss" });
  });
});
