import { describe, expect, it } from "vitest";
import { checkLinks } from "./links.js";

/** A repository in memory: file → text (directories are implied by the paths). */
function repository(files: Record<string, string>) {
  const paths = Object.keys(files);
  return {
    markdownFiles: paths.filter((path) => path.endsWith(".md")),
    read: (path: string) => files[path],
    exists: (path: string) => path === "." || paths.some((file) => file === path || file.startsWith(`${path}/`)),
  };
}

describe("checkLinks", () => {
  const docs = {
    "README.md":
      "# Plant Store\n\nSee [the API](docs/api.md#error-codes), [start](#plant-store), [code](apps/server) and [web](https://example.com/x#y).\n",
    "docs/api.md": "# The API\n\n## Error codes\n\nBack to the [README](../README.md) and [spec](spec.md).\n",
    "docs/spec.md": "# Spec\n",
    "apps/server/src/main.ts": "",
  };

  it("accepts links to existing files, directories and anchors, and leaves web addresses alone", () => {
    expect(checkLinks(repository(docs))).toEqual([]);
  });

  it("names a link to a missing file, with its file and line", () => {
    const problems = checkLinks(
      repository({ ...docs, "docs/api.md": "# The API\n\n## Error codes\n\nSee [ops](operating.md).\n" }),
    );
    expect(problems).toEqual([
      "docs/api.md:5: the link (operating.md) leads to docs/operating.md, which does not exist; fix the path or add the file",
    ]);
  });

  it("names an anchor no heading has, and lists the anchors there are", () => {
    const problems = checkLinks(repository({ ...docs, "README.md": "# Plant Store\n\n[x](docs/api.md#error-code)\n" }));
    expect(problems).toEqual([
      "README.md:3: the link (docs/api.md#error-code) points to #error-code, but docs/api.md has no heading with that anchor; use one of its anchors (#the-api, #error-codes) or add the heading",
    ]);
  });

  it("checks anchors within the same file", () => {
    const problems = checkLinks(repository({ ...docs, "docs/spec.md": "# Spec\n\n[up](#specification)\n" }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^docs\/spec\.md:3: .*#specification, but docs\/spec\.md has no heading/);
  });

  it("refuses links that leave the repository", () => {
    const problems = checkLinks(repository({ ...docs, "docs/spec.md": "[x](../../elsewhere.md)\n" }));
    expect(problems[0]).toMatch(/leads outside the repository/);
  });
});
