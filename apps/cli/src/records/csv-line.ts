/**
 * One CSV record per physical line, with RFC 4180 quoting: fields separated by commas, a field
 * may be enclosed in double quotes, and a quote inside a quoted field is written twice.
 *
 * The one deliberate departure from RFC 4180: a quoted field cannot span lines. A plant's name
 * and tag may not contain line breaks (they are control characters), so such a field could
 * never be valid, and reading line by line means one stray quote spoils one line instead of
 * swallowing the rest of the file.
 */
export type CsvLine = { ok: true; fields: string[] } | { ok: false; reason: string };

export function parseCsvLine(line: string): CsvLine {
  const fields: string[] = [];
  let position = 0;
  for (;;) {
    if (line[position] === '"') {
      // Quoted field: runs to the next quote that is not doubled.
      let value = "";
      let cursor = position + 1;
      for (;;) {
        const quote = line.indexOf('"', cursor);
        if (quote === -1) return { ok: false, reason: `quoted field ${fields.length + 1} is not closed on this line` };
        value += line.slice(cursor, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          cursor = quote + 2;
          continue;
        }
        position = quote + 1;
        break;
      }
      fields.push(value);
      if (position === line.length) return { ok: true, fields };
      if (line[position] !== ",") {
        return { ok: false, reason: `field ${fields.length} has text after its closing quote` };
      }
      position++;
    } else {
      const comma = line.indexOf(",", position);
      const end = comma === -1 ? line.length : comma;
      const value = line.slice(position, end);
      if (value.includes('"')) {
        return { ok: false, reason: `field ${fields.length + 1} has a quote but does not start with one` };
      }
      fields.push(value);
      if (comma === -1) return { ok: true, fields };
      position = comma + 1;
    }
  }
}
