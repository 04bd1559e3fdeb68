import { describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { useTestServer } from "../test-support/test-server.js";

const context = useTestServer();
const env = () => context.env();

describe("plantstore add", () => {
  it("creates a plant, then reports the identical repeat as already present", async () => {
    const first = await runCli(["add", "--id", "7", "--name", "Fern", "--tag", "indoor"], env());
    expect(first).toMatchObject({ code: 0, stdout: "created plant 7: Fern (indoor)\n", stderr: "" });
    const again = await runCli(["add", "--id", "7", "--name", "Fern", "--tag", "indoor"], env());
    expect(again).toMatchObject({ code: 0, stdout: "already present plant 7: Fern (indoor)\n" });
    expect(await context.server.storage.plants.find(7n)).toEqual({ id: 7n, name: "Fern", tag: "indoor" });
  });

  it("keeps an id above 2^53 exact and answers JSON with --json", async () => {
    const run = await runCli(["--json", "add", "--id", "9007199254740993", "--name", "Odd"], env());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: "9007199254740993", outcome: "created", plant: { name: "Odd" } });
    expect(await context.server.storage.plants.find(9007199254740993n)).toMatchObject({ name: "Odd" });
    expect(await context.server.storage.plants.find(9007199254740992n)).toBeUndefined();
  });

  it("fails with exit code 1 on a conflict, naming it", async () => {
    await runCli(["add", "--id", "8", "--name", "Ivy"], env());
    const run = await runCli(["add", "--id", "8", "--name", "Not Ivy"], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("could not add plant 8: the id is taken by a plant with another name or tag");
  });

  it("refuses an invalid plant before sending, with exit code 2", async () => {
    const run = await runCli(["add", "--id", "12.5", "--name", ""], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'plantstore: not a valid plant: id: must be an integer, not "12.5"; name: must not be empty\n',
    );
  });

  it("takes --url and --token after the command too, and reports a refused token without echoing it", async () => {
    const run = await runCli([
      "add",
      "--id",
      "9",
      "--name",
      "Fern",
      "--url",
      context.server.url,
      "--token",
      "wrong-secret",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the server refused the token");
    expect(run.stderr + run.stdout).not.toContain("wrong-secret");
  });

  it("asks for a token when there is none", async () => {
    const run = await runCli(["add", "--id", "9", "--name", "Fern"], { PLANTSTORE_URL: context.server.url });
    expect(run).toMatchObject({
      code: 2,
      stderr: "plantstore: no API token: set PLANTSTORE_TOKEN (or pass --token)\n",
    });
  });

  it("explains a missing option and shows help on every command", async () => {
    const missing = await runCli(["add", "--id", "9"], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--name <name>' not specified");
    for (const command of [[], ["add"], ["import"]]) {
      const help = await runCli([...command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: plantstore");
    }
  });
});
