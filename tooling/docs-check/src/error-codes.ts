// The API doc's error table is the contract's catalogue: every code in it with its status and name,
// and no code the catalogue does not have, in the table or anywhere else in the doc.
import { proseLines, tableUnderHeading } from "./markdown.js";

export interface CatalogueEntry {
  readonly code: number;
  readonly name: string;
  readonly status: number;
}

export const ERROR_TABLE_HEADING = "## Error codes";

export function checkErrorCodes(
  catalogue: readonly CatalogueEntry[],
  apiDoc: { readonly file: string; readonly markdown: string | undefined },
  catalogueFile: string,
): string[] {
  const { file, markdown } = apiDoc;
  if (markdown === undefined)
    return [`${file} is missing: it must hold the error catalogue under "${ERROR_TABLE_HEADING}"`];
  const rows = tableUnderHeading(markdown, ERROR_TABLE_HEADING);
  if (rows === undefined || rows.length === 0) {
    return [`${file} has no table under "${ERROR_TABLE_HEADING}": it must list every code of ${catalogueFile}`];
  }
  const problems: string[] = [];
  const byCode = new Map(catalogue.map((entry) => [entry.code, entry]));
  const documented = new Set<number>();
  for (const { line, cells } of rows) {
    const code = Number(cells[0]);
    const entry = byCode.get(code);
    if (entry === undefined) {
      problems.push(
        `${file}:${line}: error ${cells[0]} is not in the contract's catalogue (${catalogueFile}); remove the row, or add the code there`,
      );
      continue;
    }
    documented.add(code);
    if (Number(cells[1]) !== entry.status) {
      problems.push(`${file}:${line}: error ${code} is sent with status ${entry.status}, not ${cells[1]}`);
    }
    if (cells[2] !== `\`${entry.name}\``) {
      problems.push(`${file}:${line}: error ${code} is named \`${entry.name}\` in the catalogue, not ${cells[2]}`);
    }
  }
  for (const entry of catalogue) {
    if (!documented.has(entry.code)) {
      problems.push(
        `error ${entry.code} ${entry.name} (${catalogueFile}) is not documented: add the row ` +
          `| ${entry.code} | ${entry.status} | \`${entry.name}\` | <when it is sent> | to the table under "${ERROR_TABLE_HEADING}" in ${file}`,
      );
    }
  }
  // A code mentioned in prose ("404 PLANT_NOT_FOUND (40402)") must exist too.
  for (const { line, text } of proseLines(markdown)) {
    if (text.trim().startsWith("|") && rows.some((row) => row.line === line)) continue;
    for (const match of text.matchAll(/(?<![\d.,])[45]\d{4}(?![\d.,]\d)/g)) {
      if (!byCode.has(Number(match[0]))) {
        problems.push(
          `${file}:${line}: mentions error ${match[0]}, which is not in the contract's catalogue (${catalogueFile})`,
        );
      }
    }
  }
  return problems;
}
