import { parseExactJson, type StoredPlant } from "@plantstore/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";
import { useTestServer } from "../test-support/test-server.js";

// This file's server holds exactly the plants below, so that every listing can be checked whole.
const context = useTestServer();
const list = (...args: string[]) => runCli(["list", ...args], context.env());

const plants: StoredPlant[] = [
  { id: -(2n ** 63n), name: "Min", tag: "ends" },
  { id: 2n ** 63n - 1n, name: "Max", tag: "ends" },
  { id: 2n ** 53n + 1n, name: "Above 2^53, odd", tag: "exact" },
  { id: -(2n ** 53n + 1n), name: 'Below -2^53, "odd"', tag: "exact" },
  ...Array.from({ length: 246 }, (_, i): StoredPlant => {
    const id = BigInt(i - 123) * 999_983n;
    return i % 2 === 0 ? { id, name: `Plant ${i}`, tag: "even" } : { id, name: `Plant ${i}` };
  }),
];
const all = [...plants].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const lineOf = (plant: StoredPlant) => `${plant.id}\t${plant.name}\t${plant.tag ?? ""}\n`;
const linesOf = (some: StoredPlant[]) => some.map(lineOf).join("");

beforeAll(async () => {
  await Promise.all(plants.map((plant) => context.server.storage.plants.create(plant)));
});

describe("plantstore list", () => {
  it("prints the first 100 plants in id order by default, and says how to list the rest", async () => {
    const run = await list();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(linesOf(all.slice(0, 100)));
    expect(run.stderr).toBe(
      `plantstore: more plants follow; list them with --after ${all[99]!.id} (or a larger --limit)\n`,
    );
  });

  it("follows the pages as needed, and --after continues where the hint says", async () => {
    const first = await list("--limit", "25", "--page-size", "7");
    expect(first.stdout).toBe(linesOf(all.slice(0, 25)));
    const after = /--after (\S+)/.exec(first.stderr)?.[1];
    expect(after).toBe(String(all[24]!.id));
    const second = await list("--limit", "25", "--page-size", "7", "--after", after!);
    expect(second.stdout).toBe(linesOf(all.slice(25, 50)));
  });

  it("prints every plant, with no hint, when the limit is larger than the store", async () => {
    const run = await list("--limit", "100000", "--page-size", "40");
    expect(run).toMatchObject({ code: 0, stdout: linesOf(all), stderr: "" });
  });

  it("filters by tag and prints exact JSON with --json", async () => {
    const run = await list("--tag", "exact", "--json");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      '[\n{"id":-9007199254740993,"name":"Below -2^53, \\"odd\\"","tag":"exact"},\n{"id":9007199254740993,"name":"Above 2^53, odd","tag":"exact"}\n]\n',
    );
    const even = await list("--tag", "even", "--json", "--limit", "1000", "--page-size", "9");
    expect(parseExactJson(even.stdout)).toEqual(all.filter((plant) => plant.tag === "even"));
  });

  it("prints an empty JSON array when no plant matches", async () => {
    expect(await list("--tag", "nobody", "--json")).toMatchObject({ code: 0, stdout: "[]\n", stderr: "" });
    expect(await list("--after", String(2n ** 63n - 1n))).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("finds plants by a name prefix, ASCII letters in either case, in either id order", async () => {
    const named = all.filter((plant) => /^plant 1/i.test(plant.name));
    const run = await list("--name", "PLANT 1", "--limit", "1000", "--page-size", "6");
    expect(run).toMatchObject({ code: 0, stdout: linesOf(named), stderr: "" });
    const backwards = await list("--name", "plant 1", "--order", "desc", "--limit", "5", "--page-size", "2");
    expect(backwards.stdout).toBe(linesOf([...named].reverse().slice(0, 5)));
    expect(backwards.stderr).toBe(
      `plantstore: more plants follow; list them with --after ${[...named].reverse()[4]!.id} (or a larger --limit)\n`,
    );
    const evenNamed = await list("--name", "plant 1", "--tag", "even", "--json", "--limit", "1000");
    expect(parseExactJson(evenNamed.stdout)).toEqual(named.filter((plant) => plant.tag === "even"));
    expect(await list("--name", "plant 1%")).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("lists the whole store backwards", async () => {
    const run = await list("--order", "desc", "--limit", "100000", "--page-size", "33");
    expect(run).toMatchObject({ code: 0, stdout: linesOf([...all].reverse()), stderr: "" });
  });

  it.each([
    [["--name", ""], "plantstore: not a valid name prefix: must not be empty"],
    [["--order", "down"], "argument 'down' is invalid. Allowed choices are asc, desc."],
    [["--limit", "0"], "--limit <n>' argument '0' is invalid"],
    [["--page-size", "1001"], "--page-size <n>' argument '1001' is invalid"],
    [["--tag", ""], "plantstore: not a valid tag: must not be empty"],
    [["--after", "x"], 'plantstore: not a valid --after id: must be an integer, not "x"'],
  ])("refuses %j with exit code 2", async (args, message) => {
    const run = await list(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
