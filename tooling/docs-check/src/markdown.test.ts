import { describe, expect, it } from "vitest";
import { anchorsOf, githubSlug, linksOf, tableUnderHeading } from "./markdown.js";

describe("githubSlug (GitHub's anchor rules)", () => {
  it.each([
    ["Tokens and scopes", "tokens-and-scopes"],
    ["`@plantstore/contract` ([packages/contract](packages/contract))", "plantstorecontract-packagescontract"],
    ["Scaling out on PostgreSQL", "scaling-out-on-postgresql"],
    ["What's new? (2.0)", "whats-new-20"],
    ["snake_case_name and **bold** and _emphasis_", "snake_case_name-and-bold-and-emphasis"],
    ["Create, read, list, delete", "create-read-list-delete"],
    ["Ünïcode 🌿 heading", "ünïcode--heading"],
  ])("%s → #%s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it("numbers repeated headings -1, -2, and ignores headings inside code blocks", () => {
    const anchors = anchorsOf("# A\n\n## Notes\n\n```md\n## Inside\n```\n\n## Notes\n\nSetext\n------\n\n## Notes\n");
    expect([...anchors].sort()).toEqual(["a", "notes", "notes-1", "notes-2", "setext"]);
  });
});

describe("linksOf", () => {
  it("finds inline links, images and reference definitions, not links inside code", () => {
    const links = linksOf(
      'See [a](docs/a.md#x) and ![img](pic.png "title").\n`[not](a-link)`\n```\n[not](either)\n```\n[ref]: other.md\n',
    );
    expect(links).toEqual([
      { line: 1, target: "docs/a.md#x" },
      { line: 1, target: "pic.png" },
      { line: 6, target: "other.md" },
    ]);
  });
});

describe("tableUnderHeading", () => {
  it("reads the first table under the heading, cells trimmed, pipes in code kept", () => {
    const rows = tableUnderHeading(
      "## Other\n\n| a |\n|---|\n| no |\n\n## Wanted\n\nText.\n\n| v | w |\n|---|---|\n| `A` | x `a|b` y |\n| `B` | z |\n\nAfter.\n",
      "## Wanted",
    );
    expect(rows).toEqual([
      { line: 13, cells: ["`A`", "x `a|b` y"] },
      { line: 14, cells: ["`B`", "z"] },
    ]);
  });

  it("is undefined without the heading", () => {
    expect(tableUnderHeading("# Title\n", "## Wanted")).toBeUndefined();
  });
});
