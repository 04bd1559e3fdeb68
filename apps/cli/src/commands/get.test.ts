import { parseExactJson } from "@plantstore/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { useTestServer } from "../test-support/test-server.js";

const context = useTestServer();
const get = (...args: string[]) => runCli(args, context.env());

const PLANTS = [
  { id: 2n ** 53n + 1n, name: "Above 2^53, odd", tag: "exact" },
  { id: -(2n ** 53n + 1n), name: 'Below -2^53, "odd"', tag: "ëxact 🌿" },
  { id: -(2n ** 63n), name: "Min" },
  { id: 2n ** 63n - 1n, name: "Max", tag: "end" },
];

beforeAll(async () => {
  for (const plant of PLANTS) await context.server.storage.plants.create(plant);
});

describe("plantstore get", () => {
  it("prints the plant as id, name and tag separated by tabs, every digit of the id kept", async () => {
    for (const plant of PLANTS) {
      const run = await get("get", String(plant.id));
      expect(run).toMatchObject({ code: 0, stdout: `${plant.id}\t${plant.name}\t${plant.tag ?? ""}\n`, stderr: "" });
    }
  });

  it("prints exact JSON with --json: ids as integers with every digit", async () => {
    const run = await get("get", "9007199254740993", "--json");
    expect(run).toMatchObject({ code: 0, stdout: '{"id":9007199254740993,"name":"Above 2^53, odd","tag":"exact"}\n' });
    const min = await get("--json", "get", "-9223372036854775808");
    expect(min.stdout).toBe('{"id":-9223372036854775808,"name":"Min"}\n');
    expect(parseExactJson(min.stdout)).toEqual(PLANTS[2]);
  });

  it("says in one line that no plant has the id, with exit code 1", async () => {
    const run = await get("get", "9007199254740992");
    expect(run).toMatchObject({ code: 1, stdout: "", stderr: "plantstore: no plant has id 9007199254740992\n" });
    const json = await get("get", "9007199254740992", "--json");
    expect(json.code).toBe(1);
    expect(parseExactJson(json.stdout)).toEqual({
      id: 9007199254740992n,
      error: { kind: "http", status: 404, code: 40402, codeName: "PLANT_NOT_FOUND", message: expect.any(String) },
    });
  });

  it.each([
    ["abc", 'not a valid id: must be an integer, not "abc"'],
    ["1.5", 'not a valid id: must be an integer, not "1.5"'],
    ["9223372036854775808", "not a valid id: must be between -2^63 and 2^63-1 (int64)"],
  ])("refuses the id %j with exit code 2", async (id, message) => {
    expect(await get("get", id)).toMatchObject({ code: 2, stdout: "", stderr: `plantstore: ${message}\n` });
  });

  it("reports a refused token in one line without echoing it", async () => {
    const run = await runCli(["get", "1"], { ...context.env(), PLANTSTORE_TOKEN: "not-the-token" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^plantstore: could not get plant 1: the server refused the token \(.*\)\n$/);
    expect(run.stdout + run.stderr).not.toContain("not-the-token");
  });

  it("shows help for each new command", async () => {
    for (const command of ["get", "list", "delete", "export"]) {
      const help = await runCli([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: plantstore ${command}`);
      expect(help.stdout).toContain("Exit status:");
    }
    expect((await runCli(["get"])).code).toBe(2);
  });
});
