import { stringifyExactJson, type StoredPlant } from "@plantstore/contract";
import type { RecordFormat } from "./format.js";

/**
 * Writes plants exactly as `readRecords` reads them back, so that an export imported into another
 * store makes the same plants:
 * - CSV: the header `id,name,tag`, then one line a plant; a field holding a comma or a double quote
 *   is quoted, its quotes doubled (RFC 4180). Nothing else needs quoting: names and tags cannot
 *   hold line breaks (control characters), and every other character, spaces at either end
 *   included, is read back as written. No tag is an empty field (a tag is never empty).
 * - JSON Lines: one NewPlant object a line, `{"id":…,"name":…,"tag":…}`, the id an exact integer.
 */
export function headerOf(format: RecordFormat): string {
  return format === "csv" ? "id,name,tag\n" : "";
}

export function recordOf(plant: StoredPlant, format: RecordFormat): string {
  const { id, name, tag } = plant;
  if (format === "csv") return `${id},${csvField(name)},${tag === undefined ? "" : csvField(tag)}\n`;
  return `${stringifyExactJson(tag === undefined ? { id, name } : { id, name, tag })}\n`;
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
