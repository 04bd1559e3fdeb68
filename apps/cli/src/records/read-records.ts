import type { Readable } from "node:stream";
import { parseExactJson, type NewPlantInput } from "@plantstore/contract";
import { checkNewPlant, parseIdText } from "./check-new-plant.js";
import { parseCsvLine } from "./csv-line.js";
import type { RecordFormat } from "./format.js";
import { untilAborted, utf8Lines } from "./utf8-lines.js";

export type { RecordFormat };

/** One data line of the source: a plant to create, or the reason the line is not one. */
export type SourceRecord =
  { line: number; ok: true; plant: NewPlantInput } | { line: number; ok: false; reason: string; idText?: string };

/** A problem with the whole source (e.g. a CSV header without an id column): the import cannot start. */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

const CSV_COLUMNS = ["id", "name", "tag"] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

/**
 * Reads records line by line; blank lines are skipped and line numbers are 1-based physical lines.
 * When `signal` fires, reading stops: the records end, even while waiting for input that has not
 * come (standard input from a producer that is still running).
 */
export async function* readRecords(
  input: Readable,
  format: RecordFormat,
  signal?: AbortSignal,
): AsyncGenerator<SourceRecord> {
  if (signal?.aborted) return;
  let lineNumber = 0;
  let csvColumns: CsvColumn[] | undefined;
  for await (const source of utf8Lines(untilAborted(input, signal))) {
    lineNumber++;
    if (!source.ok) {
      // Nothing is stored from a line that is not text; a CSV header must be text.
      if (format === "csv" && csvColumns === undefined) throw new SourceError(`line ${lineNumber}: ${source.reason}`);
      yield { line: lineNumber, ok: false, reason: source.reason };
      continue;
    }
    const line = lineNumber === 1 ? source.text.replace(/^\uFEFF/, "") : source.text;
    if (line.trim() === "") continue;
    if (format === "jsonl") {
      yield fromJsonLine(line, lineNumber);
    } else if (csvColumns === undefined) {
      csvColumns = parseCsvHeader(line, lineNumber);
    } else {
      yield fromCsvLine(line, lineNumber, csvColumns);
    }
  }
  if (signal?.aborted) return;
  if (format === "csv" && csvColumns === undefined) throw new SourceError("the CSV has no header line (id,name,tag)");
}

function parseCsvHeader(line: string, lineNumber: number): CsvColumn[] {
  const parsed = parseCsvLine(line);
  if (!parsed.ok) throw new SourceError(`line ${lineNumber}: the CSV header is not valid CSV: ${parsed.reason}`);
  const columns = parsed.fields.map((field) => field.trim().toLowerCase());
  for (const column of columns) {
    if (!(CSV_COLUMNS as readonly string[]).includes(column)) {
      throw new SourceError(
        `line ${lineNumber}: unknown CSV column ${JSON.stringify(column)}; the header is id,name and optionally tag`,
      );
    }
  }
  if (new Set(columns).size !== columns.length) throw new SourceError(`line ${lineNumber}: a CSV column is repeated`);
  if (!columns.includes("id") || !columns.includes("name")) {
    throw new SourceError(`line ${lineNumber}: the CSV header needs the columns id and name (and optionally tag)`);
  }
  return columns as CsvColumn[];
}

function fromCsvLine(line: string, lineNumber: number, columns: CsvColumn[]): SourceRecord {
  const parsed = parseCsvLine(line);
  if (!parsed.ok) return { line: lineNumber, ok: false, reason: `not valid CSV: ${parsed.reason}` };
  if (parsed.fields.length !== columns.length) {
    return {
      line: lineNumber,
      ok: false,
      reason: `expected ${columns.length} fields (${columns.join(",")}), found ${parsed.fields.length}`,
    };
  }
  const field = (column: CsvColumn) => {
    const index = columns.indexOf(column);
    return index === -1 ? undefined : parsed.fields[index];
  };
  const idText = field("id") ?? "";
  const id = parseIdText(idText);
  const tag = field("tag");
  // CSV cannot tell an empty tag from no tag; an empty one would be refused, so it means "no tag".
  const candidate = { id: id.ok ? id.id : 0n, name: field("name"), ...(tag !== undefined && tag !== "" && { tag }) };
  const checked = checkNewPlant(candidate, id.ok ? [] : [id.reason]);
  return checked.ok
    ? { line: lineNumber, ok: true, plant: checked.plant }
    : { line: lineNumber, ok: false, reason: checked.reason, idText };
}

function fromJsonLine(line: string, lineNumber: number): SourceRecord {
  let value: unknown;
  try {
    value = parseExactJson(line);
  } catch (error) {
    return { line: lineNumber, ok: false, reason: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { line: lineNumber, ok: false, reason: "not a JSON object" };
  }
  const checked = checkNewPlant(value);
  if (checked.ok) return { line: lineNumber, ok: true, plant: checked.plant };
  const id = (value as { id?: unknown }).id;
  return {
    line: lineNumber,
    ok: false,
    reason: checked.reason,
    ...((typeof id === "bigint" || typeof id === "number") && { idText: String(id) }),
  };
}
