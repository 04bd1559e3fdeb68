import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readRecords, type RecordFormat, type SourceRecord } from "./read-records.js";
import { MAX_LINE_BYTES } from "./utf8-lines.js";

async function read(text: string, format: RecordFormat): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of readRecords(Readable.from([text]), format)) records.push(record);
  return records;
}

describe("readRecords: CSV", () => {
  it("reads plants with exact ids, physical line numbers, CRLF, a BOM and blank lines", async () => {
    const text = '\uFEFFid,name,tag\r\n7,Fern,indoor\r\n\r\n9223372036854775807,"Big, one",\r\n-5,Neg,x\r\n';
    expect(await read(text, "csv")).toEqual([
      { line: 2, ok: true, plant: { id: 7n, name: "Fern", tag: "indoor" } },
      { line: 4, ok: true, plant: { id: 9223372036854775807n, name: "Big, one" } },
      { line: 5, ok: true, plant: { id: -5n, name: "Neg", tag: "x" } },
    ]);
  });

  it("accepts the columns in any order, and tag may be left out", async () => {
    expect(await read("name,id\nFern,3\n", "csv")).toEqual([{ line: 2, ok: true, plant: { id: 3n, name: "Fern" } }]);
  });

  it("reports each bad line with its reason and goes on", async () => {
    const text = [
      "id,name,tag",
      "1,,x",
      "abc,Fern,",
      "9223372036854775808,Fern,",
      '4,"Fern',
      "5,Fern",
      "6,Fern,\u0007",
      "7,Fern,ok",
    ].join("\n");
    expect(await read(text, "csv")).toEqual([
      { line: 2, ok: false, idText: "1", reason: "name: must not be empty" },
      { line: 3, ok: false, idText: "abc", reason: 'id: must be an integer, not "abc"' },
      { line: 4, ok: false, idText: "9223372036854775808", reason: "id: must be between -2^63 and 2^63-1 (int64)" },
      { line: 5, ok: false, reason: "not valid CSV: quoted field 2 is not closed on this line" },
      { line: 6, ok: false, reason: "expected 3 fields (id,name,tag), found 2" },
      { line: 7, ok: false, idText: "6", reason: "tag: must not contain control characters" },
      { line: 8, ok: true, plant: { id: 7n, name: "Fern", tag: "ok" } },
    ]);
  });

  it.each([
    ["id,name,color\n", 'unknown CSV column "color"'],
    ["id,tag\n", "needs the columns id and name"],
    ["id,name,name\n", "a CSV column is repeated"],
    ["\n\n", "the CSV has no header line"],
  ])("refuses the header of %j", async (text, message) => {
    await expect(read(text, "csv")).rejects.toThrow(message);
  });
});

describe("readRecords: JSON Lines", () => {
  it("reads exact int64 ids", async () => {
    const text = '{"id": 9007199254740993, "name": "Fern"}\n{"id": 9007199254740992, "name": "Ivy", "tag": "x"}\n';
    expect(await read(text, "jsonl")).toEqual([
      { line: 1, ok: true, plant: { id: 9007199254740993n, name: "Fern" } },
      { line: 2, ok: true, plant: { id: 9007199254740992n, name: "Ivy", tag: "x" } },
    ]);
  });

  it("reports bad lines with the contract's reasons", async () => {
    const text = [
      '{"id": 1, "name": "Fern", "color": "green"}',
      '{"id": "2", "name": "Fern"}',
      '{"id": 1.5, "name": "Fern"}',
      "[1]",
      "{oops",
      "",
      '{"id": 3, "name": "Fern", "tag": null}',
    ].join("\n");
    const records = await read(text, "jsonl");
    expect(records.map((record) => [record.line, record.ok ? "ok" : record.reason])).toEqual([
      [1, expect.stringContaining("color")],
      [2, "id: must be an integer, not a string"],
      [3, "id: must be an integer"],
      [4, "not a JSON object"],
      [5, expect.stringMatching(/^not valid JSON: /)],
      [7, "tag: must be a string"],
    ]);
  });
});

describe("readRecords: stopping", () => {
  it("ends when its signal fires, even while waiting for input that has not come", async () => {
    const input = new PassThrough();
    const controller = new AbortController();
    const records = readRecords(input, "jsonl", controller.signal);
    const first = records.next();
    input.write('{"id": 1, "name": "Fern"}\n');
    expect(await first).toEqual({ done: false, value: { line: 1, ok: true, plant: { id: 1n, name: "Fern" } } });
    const pending = records.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it("reads nothing once its signal has fired", async () => {
    const controller = new AbortController();
    controller.abort();
    const records = readRecords(Readable.from(["id,name\n1,Fern\n"]), "csv", controller.signal);
    expect(await records.next()).toEqual({ done: true, value: undefined });
  });
});

describe("readRecords: bytes that are not UTF-8 text", () => {
  async function readBytes(chunks: Buffer[], format: RecordFormat): Promise<SourceRecord[]> {
    const records: SourceRecord[] = [];
    for await (const record of readRecords(Readable.from(chunks), format)) records.push(record);
    return records;
  }
  const latin1 = (text: string) => Buffer.from(text, "latin1");

  it("reports a line with invalid UTF-8 as invalid, with its number, and stores nothing from it", async () => {
    // "Café" in Latin-1: readline made it "Caf\uFFFD" and the import stored that.
    const chunks = [
      Buffer.from('{"id": 1, "name": "Fern"}\n'),
      latin1('{"id": 2, "name": "Caf\u00e9"}\n'),
      Buffer.from("3,x\n"),
    ];
    expect(await readBytes(chunks, "jsonl")).toEqual([
      { line: 1, ok: true, plant: { id: 1n, name: "Fern" } },
      { line: 2, ok: false, reason: "not valid UTF-8 text" },
      { line: 3, ok: false, reason: expect.stringMatching(/^not valid JSON/) as string },
    ]);
    const csv = [Buffer.from("id,name\r\n"), latin1("2,Caf\u00e9\r\n"), Buffer.from("3,Caf\u00e9\r\n")];
    expect(await readBytes(csv, "csv")).toEqual([
      { line: 2, ok: false, reason: "not valid UTF-8 text" },
      { line: 3, ok: true, plant: { id: 3n, name: "Caf\u00e9" } },
    ]);
  });

  it("refuses a CSV header that is not UTF-8", async () => {
    await expect(readBytes([latin1("id,n\u00e4me\n")], "csv")).rejects.toThrow("line 1: not valid UTF-8 text");
  });

  it("splits lines at LF, CRLF and a lone CR wherever the chunks break, characters split across chunks", async () => {
    const text = "id,name\r\n1,Caf\u00e9 \ud83c\udf3f\n2,b\r3,c\r\n\r\n4,d";
    const bytes = Buffer.from(text);
    const expected = [
      { line: 2, ok: true, plant: { id: 1n, name: "Caf\u00e9 \ud83c\udf3f" } },
      { line: 3, ok: true, plant: { id: 2n, name: "b" } },
      { line: 4, ok: true, plant: { id: 3n, name: "c" } },
      { line: 6, ok: true, plant: { id: 4n, name: "d" } },
    ];
    for (let size = 1; size <= bytes.length; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      expect(await readBytes(chunks, "csv"), `chunks of ${size}`).toEqual(expected);
    }
  });

  it(`reports a line longer than ${MAX_LINE_BYTES} bytes without keeping it`, async () => {
    const long = Buffer.alloc(MAX_LINE_BYTES * 4, "a");
    const chunks = [Buffer.from('{"id": 1, "name": "'), long, Buffer.from('"}\n{"id": 2, "name": "b"}')];
    expect(await readBytes(chunks, "jsonl")).toEqual([
      { line: 1, ok: false, reason: `longer than ${MAX_LINE_BYTES} bytes` },
      { line: 2, ok: true, plant: { id: 2n, name: "b" } },
    ]);
  });
});
