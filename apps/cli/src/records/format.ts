import { extname } from "node:path";

/** The two file formats `import` reads and `export` writes. */
export type RecordFormat = "csv" | "jsonl";

export const RECORD_FORMATS: readonly RecordFormat[] = ["csv", "jsonl"];

/** The format a file name says (`.csv`; `.jsonl` or `.ndjson`), or undefined when it says none. */
export function formatFromName(path: string): RecordFormat | undefined {
  const extension = extname(path).toLowerCase();
  if (extension === ".csv") return "csv";
  if (extension === ".jsonl" || extension === ".ndjson") return "jsonl";
  return undefined;
}
