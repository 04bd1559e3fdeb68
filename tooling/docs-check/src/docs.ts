// The three checks, run against this repository (what `npm test` runs).
import { errorCatalogue } from "@plantstore/contract";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { envReadsIn, checkEnvVars, type VariableTable } from "./env-vars.js";
import { checkErrorCodes } from "./error-codes.js";
import { checkLinks } from "./links.js";
import { codeFiles, existsRelative, markdownFiles, readRelative, repositoryRoot } from "./repository.js";

export const OPERATING_DOC = "docs/operating.md";
export const TESTING_DOC = "docs/testing.md";
export const API_DOC = "docs/api.md";
export const CATALOGUE_SOURCE = "packages/contract/src/error.ts";

export function repositoryLinkProblems(): string[] {
  return checkLinks({ markdownFiles: markdownFiles(), read: readRelative, exists: existsRelative });
}

export function repositoryEnvProblems(): string[] {
  const reads = codeFiles().flatMap((file) => envReadsIn(readFileSync(join(repositoryRoot, file), "utf8"), file));
  const tables: VariableTable[] = [
    {
      file: OPERATING_DOC,
      heading: "## Configuration",
      markdown: readRelative(OPERATING_DOC),
      readBy: "the server, the CLI and the benchmark",
    },
    {
      file: TESTING_DOC,
      heading: "## Environment variables of the tests",
      markdown: readRelative(TESTING_DOC),
      readBy: "the tests and CI",
    },
  ];
  return checkEnvVars(reads, tables);
}

export function repositoryErrorCodeProblems(): string[] {
  return checkErrorCodes(errorCatalogue, { file: API_DOC, markdown: readRelative(API_DOC) }, CATALOGUE_SOURCE);
}
