export { runCli } from "./program.js";
export { importPlants, type ImportOptions } from "./import/import-plants.js";
export { formatSummary, importSucceeded, type ImportSummary, type LineFailure } from "./import/import-summary.js";
export { readRecords, SourceError, type RecordFormat, type SourceRecord } from "./records/read-records.js";
export { parseCsvLine, type CsvLine } from "./records/csv-line.js";
