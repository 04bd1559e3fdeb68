import { Readable } from "node:stream";
import type { StoredPlant } from "@plantstore/contract";
import { describe, expect, it } from "vitest";
import type { RecordFormat } from "./format.js";
import { readRecords } from "./read-records.js";
import { csvField, headerOf, recordOf } from "./write-records.js";

/** Plants whose text CSV and JSON must carry exactly: quotes, commas, spaces, non-ASCII, separators. */
const TRICKY: StoredPlant[] = [
  { id: 2n ** 53n + 1n, name: "Fern, the green", tag: "in,door" },
  { id: -(2n ** 63n), name: 'say "hi"', tag: '"quoted"' },
  { id: 2n ** 63n - 1n, name: '"starts with a quote' },
  { id: -1n, name: "  spaces at both ends  ", tag: " t " },
  { id: 0n, name: "Ünïcødé 🌿 名前 \u2028 \u2029 \uFEFF", tag: "🌿".repeat(64) },
  { id: 5n, name: "C:\\path\\ =1+1 'single'", tag: "tab-less" },
  { id: 6n, name: "🌿".repeat(256) },
];

async function roundTrip(format: RecordFormat): Promise<unknown[]> {
  const text = headerOf(format) + TRICKY.map((plant) => recordOf(plant, format)).join("");
  const plants: unknown[] = [];
  for await (const record of readRecords(Readable.from([text]), format)) {
    plants.push(record.ok ? record.plant : record);
  }
  return plants;
}

describe("recordOf / headerOf", () => {
  it("quotes a CSV field only for a comma or a double quote, doubling the quotes (RFC 4180)", () => {
    expect(csvField("Fern")).toBe("Fern");
    expect(csvField("Fern, the green")).toBe('"Fern, the green"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("  spaces  ")).toBe("  spaces  ");
    expect(headerOf("csv")).toBe("id,name,tag\n");
    expect(recordOf({ id: -(2n ** 63n), name: 'a "b", c' }, "csv")).toBe('-9223372036854775808,"a ""b"", c",\n');
  });

  it("writes a JSON Lines record as a NewPlant with an exact integer id", () => {
    expect(headerOf("jsonl")).toBe("");
    expect(recordOf({ id: 2n ** 53n + 1n, name: "Fern", tag: "x" }, "jsonl")).toBe(
      '{"id":9007199254740993,"name":"Fern","tag":"x"}\n',
    );
    expect(recordOf({ id: 1n, name: "No tag" }, "jsonl")).toBe('{"id":1,"name":"No tag"}\n');
  });

  it.each<RecordFormat>(["csv", "jsonl"])(
    "writes %s that the importer reads back to the same plants",
    async (format) => {
      expect(await roundTrip(format)).toEqual(TRICKY);
    },
  );
});
