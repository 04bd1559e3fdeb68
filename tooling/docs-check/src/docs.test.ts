// Docs that cannot rot: these fail `npm test` when a doc and the code part ways. Each message says
// what is missing and where to add it.
import { describe, it } from "vitest";
import { repositoryEnvProblems, repositoryErrorCodeProblems, repositoryLinkProblems } from "./docs.js";

function expectNone(problems: string[]): void {
  if (problems.length > 0) throw new Error(`${problems.length} problem(s) in the docs:\n- ${problems.join("\n- ")}`);
}

describe("the repository's docs", () => {
  it("every relative link and #anchor in every Markdown file resolves", () => {
    expectNone(repositoryLinkProblems());
  });

  it("every environment variable the code reads is in a documented table, and every documented one is read", () => {
    expectNone(repositoryEnvProblems());
  });

  it("the API doc's error table is the contract's catalogue, and it mentions no other code", () => {
    expectNone(repositoryErrorCodeProblems());
  });
});
