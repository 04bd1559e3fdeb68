import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { text } from "node:stream/consumers";
import { join } from "node:path";
import { createPlantStoreClient } from "@plantstore/client";
import { startFlakyProxy } from "@plantstore/client/testing";
import { parseExactJson, type StoredPlant } from "@plantstore/contract";
import { beforeAll, describe, expect, it } from "vitest";
import type { ImportSummary } from "../import/import-summary.js";
import { runCli, spawnCli } from "../test-support/run-cli.js";
import { TEST_TOKEN, useTestServer, type TestServerContext } from "../test-support/test-server.js";

// The source store, and two empty stores that imports of its exports fill.
const source = useTestServer();
const csvCopy = useTestServer();
const jsonlCopy = useTestServer();

/** Plants whose text must survive both formats exactly: commas, quotes, spaces, non-ASCII, separators. */
const TRICKY: StoredPlant[] = [
  { id: 2n ** 53n + 1n, name: "Fern, the green", tag: "in,door" },
  { id: -(2n ** 53n + 1n), name: 'say "hi", then "bye"', tag: '"quoted"' },
  { id: 2n ** 53n, name: "2^53 (the neighbour)" },
  { id: -(2n ** 63n), name: '"starts with a quote', tag: "min" },
  { id: 2n ** 63n - 1n, name: 'ends with a quote"', tag: "max" },
  { id: -1n, name: "  spaces at both ends  ", tag: " t " },
  { id: 0n, name: "Ünïcødé 🌿 名前 \u2028 \u2029 \uFEFF", tag: "🌿".repeat(64) },
  { id: 5n, name: "C:\\path\\ =1+1 'single' a,b,\"c\"", tag: "Zürich, «quoted»" },
  { id: 6n, name: "🌿".repeat(256) },
];
/** A few thousand more, so that an export spans many pages. */
const MANY = 3_000;
const manyPlants = Array.from({ length: MANY }, (_, i): StoredPlant => {
  const id = (i % 2 === 0 ? 1n : -1n) * (2n ** 60n + BigInt(i) * 7_919n);
  return i % 3 === 0 ? { id, name: `Plant ${i}, "no. ${i}"`, tag: `tag ${i % 5}` } : { id, name: `Plant ${i}` };
});
const ALL = [...TRICKY, ...manyPlants].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

beforeAll(async () => {
  await Promise.all(ALL.map((plant) => source.server.storage.plants.create(plant)));
}, 60_000);

/** Every plant of a store, in id order, read through the API. */
async function plantsOf(store: TestServerContext): Promise<StoredPlant[]> {
  const client = createPlantStoreClient({ baseUrl: store.server.url, token: TEST_TOKEN });
  const plants: StoredPlant[] = [];
  for await (const plant of client.plants({ pageSize: 1_000 })) plants.push(plant);
  return plants;
}

const exportFrom = (args: string[], env: Record<string, string> = source.env()) => runCli(["export", ...args], env);
const fileIn = (store: TestServerContext, name: string) => join(store.server.directory, name);
const filesIn = (store: TestServerContext) => readdirSync(store.server.directory).sort();
/** The last line of standard error: progress lines may come before it when the export is slow. */
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) ?? "";

describe("plantstore export → import", () => {
  it.each([
    ["csv", csvCopy],
    ["jsonl", jsonlCopy],
  ] as const)(
    "copies every plant exactly into another store through %s",
    async (format, copy) => {
      const file = fileIn(source, `plants.${format}`);
      const exported = await exportFrom([file, "--page-size", "250"]);
      expect(exported).toMatchObject({ code: 0 });
      expect(exported.stdout).toMatch(
        new RegExp(
          `^exported ${ALL.length} plants to .*plants\\.${format} \\(${format}\\) in [\\d.]+ s \\(\\d+ plants/s\\)\\n$`,
        ),
      );
      expect(readFileSync(file, "utf8").split("\n")).toHaveLength(ALL.length + (format === "csv" ? 2 : 1));

      const imported = await runCli(["import", file, "--json"], copy.env());
      const summary = JSON.parse(imported.stdout) as ImportSummary;
      expect(imported.code).toBe(0);
      expect(summary).toMatchObject({ lines: ALL.length, created: ALL.length, invalid: [], conflicts: [] });
      expect(await plantsOf(copy)).toEqual(ALL);
      expect(await plantsOf(source)).toEqual(ALL);
    },
    120_000,
  );

  it("writes CSV quoted as RFC 4180 says and JSON Lines with exact ids", async () => {
    const csv = await exportFrom(["-", "--format", "csv", "--page-size", "1000"]);
    const csvLines = csv.stdout.split("\n");
    expect(csvLines[0]).toBe("id,name,tag");
    expect(csvLines).toContain('-9007199254740993,"say ""hi"", then ""bye""","""quoted"""');
    expect(csvLines).toContain('9007199254740993,"Fern, the green","in,door"');
    expect(csvLines).toContain("-1,  spaces at both ends  , t ");
    const jsonl = await exportFrom([]);
    expect(jsonl.stdout.split("\n")).toContain(
      '{"id":-9223372036854775808,"name":"\\"starts with a quote","tag":"min"}',
    );
    expect(
      jsonl.stdout
        .trimEnd()
        .split("\n")
        .map((line) => parseExactJson(line)),
    ).toEqual(ALL);
  });
});

describe("plantstore export", () => {
  it("writes JSON Lines to standard output by default, the summary on standard error", async () => {
    const run = await exportFrom(["--json"]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toHaveLength(ALL.length + 1);
    expect(JSON.parse(lastLine(run.stderr))).toEqual({
      destination: "-",
      format: "jsonl",
      plants: ALL.length,
      elapsedMs: expect.any(Number),
    });
  });

  it.each(["-", "/dev/stdout"])("writes to standard output when the target is %s", async (target) => {
    const run = await exportFrom([target, "--json"]);
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => parseExactJson(line)),
    ).toEqual(ALL);
    expect(JSON.parse(lastLine(run.stderr))).toMatchObject({ destination: target, plants: ALL.length });
  });

  it("writes into a FIFO, which stays a FIFO (it used to be replaced by a file)", async () => {
    const fifo = fileIn(source, "plants.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // The reader opens the FIFO first (the export's open waits for one) and reads to its end.
    const received = text(createReadStream(fifo));
    const run = await exportFrom([fifo, "--format", "jsonl", "--json"]);
    expect(run.code).toBe(0);
    expect(
      (await received)
        .trimEnd()
        .split("\n")
        .map((line) => parseExactJson(line)),
    ).toEqual(ALL);
    expect(JSON.parse(run.stdout)).toMatchObject({ destination: fifo, plants: ALL.length });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(existsSync(`${fifo}.partial`)).toBe(false);
  });

  it("takes the format from --format over the file name, and answers a JSON summary with --json", async () => {
    const file = fileIn(source, "plants.txt");
    expect(await exportFrom([file])).toMatchObject({
      code: 2,
      stderr: `plantstore: cannot tell the format of ${file} from its name: pass --format csv or --format jsonl\n`,
    });
    const run = await exportFrom([file, "--format", "csv", "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ destination: file, format: "csv", plants: ALL.length });
    expect(readFileSync(file, "utf8").startsWith("id,name,tag\n")).toBe(true);
  });

  it("leaves no file, complete or partial, when the export fails (exit 1)", async () => {
    const file = fileIn(source, "refused.csv");
    const run = await exportFrom([file], { ...source.env(), PLANTSTORE_TOKEN: "not-the-token" });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toMatch(
      /^plantstore: export failed: the server refused the token .*; .*refused\.csv was not written$/,
    );
    expect(run.stdout + run.stderr).not.toContain("not-the-token");
    expect(filesIn(source).filter((name) => name.startsWith("refused"))).toEqual([]);
  });

  it("refuses a destination it cannot write with exit code 2", async () => {
    const run = await exportFrom([join(source.server.directory, "no-such-dir", "plants.csv")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^plantstore: cannot write .*plants\.csv: no such directory\n$/);
    expect((await exportFrom([source.server.directory, "--format", "csv"])).stderr).toContain("is a directory");
  });

  it("on Ctrl-C stops, leaves no file and exits 130", async () => {
    const file = fileIn(source, "interrupted.jsonl");
    // The proxy holds the first page request: the export is waiting on it when interrupted.
    const proxy = await startFlakyProxy(source.server.url, [{ kind: "stall" }]);
    try {
      const run = spawnCli(["export", file, "--timeout", "600000"], {
        PLANTSTORE_URL: proxy.url,
        PLANTSTORE_TOKEN: TEST_TOKEN,
      });
      await proxy.requestsArrived(1);
      run.child.kill("SIGINT");
      const result = await run.finished;
      expect(result.code).toBe(130);
      expect(result.stderr).toContain("plantstore: interrupted; stopping the export");
      expect(result.stderr).toContain(`plantstore: export interrupted (after 0 plants); ${file} was not written\n`);
      expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});
