import { describe, expect, it } from "vitest";
import { checkErrorCodes } from "./error-codes.js";

const catalogue = [
  { code: 40001, name: "MALFORMED_JSON", status: 400 },
  { code: 40402, name: "PLANT_NOT_FOUND", status: 404 },
];

function apiDoc(rows: string, prose = ""): { file: string; markdown: string } {
  return {
    file: "docs/api.md",
    markdown: `# The API\n\n${prose}\n\n## Error codes\n\n| error | status | name | when |\n| --- | --- | --- | --- |\n${rows}\n## Next\n`,
  };
}

describe("checkErrorCodes", () => {
  const complete =
    "| 40001 | 400 | `MALFORMED_JSON` | not JSON |\n| 40402 | 404 | `PLANT_NOT_FOUND` | no such plant |\n";

  it("passes when the table is the catalogue", () => {
    expect(
      checkErrorCodes(
        catalogue,
        apiDoc(complete, "An unknown id is 404 (40402); ids up to 9223372036854775807."),
        "error.ts",
      ),
    ).toEqual([]);
  });

  it("names a catalogue code the doc lacks, with the row to add", () => {
    expect(checkErrorCodes(catalogue, apiDoc("| 40001 | 400 | `MALFORMED_JSON` | not JSON |\n"), "error.ts")).toEqual([
      'error 40402 PLANT_NOT_FOUND (error.ts) is not documented: add the row | 40402 | 404 | `PLANT_NOT_FOUND` | <when it is sent> | to the table under "## Error codes" in docs/api.md',
    ]);
  });

  it("names a documented code the catalogue lacks, in the table or in prose, and a wrong status or name", () => {
    const rows = `${complete}| 40999 | 400 | \`MADE_UP\` | never |\n`;
    expect(checkErrorCodes(catalogue, apiDoc(rows, "A conflict is 40901."), "error.ts")).toEqual([
      "docs/api.md:11: error 40999 is not in the contract's catalogue (error.ts); remove the row, or add the code there",
      "docs/api.md:3: mentions error 40901, which is not in the contract's catalogue (error.ts)",
    ]);
    expect(
      checkErrorCodes(
        catalogue,
        apiDoc("| 40001 | 400 | `MALFORMED_JSON` | x |\n| 40402 | 400 | `NOT_FOUND` | y |\n"),
        "error.ts",
      ),
    ).toEqual([
      "docs/api.md:10: error 40402 is sent with status 404, not 400",
      "docs/api.md:10: error 40402 is named `PLANT_NOT_FOUND` in the catalogue, not `NOT_FOUND`",
    ]);
  });

  it("fails without the doc or its table", () => {
    expect(checkErrorCodes(catalogue, { file: "docs/api.md", markdown: undefined }, "error.ts")).toHaveLength(1);
    expect(checkErrorCodes(catalogue, { file: "docs/api.md", markdown: "# The API\n" }, "error.ts")[0]).toMatch(
      /no table under "## Error codes"/,
    );
  });
});
