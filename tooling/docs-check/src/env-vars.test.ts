import { describe, expect, it } from "vitest";
import { checkEnvVars, envReadsIn, type VariableTable } from "./env-vars.js";

describe("envReadsIn", () => {
  it("finds every way this repository's code reads a variable, once each, and not the platform's own", () => {
    const source = [
      'const port = process.env.PORT ?? "3000";',
      "const host = env.HOST;",
      'const level = process.env["LOG_LEVEL"];',
      'const max = integer(env, "PG_POOL_MAX", 10, 1, 1000);',
      'new Option("--url <url>").env("PLANTSTORE_URL");',
      'export const TEST_DATABASE_ENV = "PLANTSTORE_TEST_DATABASE_URL";',
      'const origins = readList("PLANTSTORE_CORS_ORIGINS");',
      "const again = process.env.PORT; const path = process.env.PATH;",
    ].join("\n");
    expect(envReadsIn(source, "src/config.ts").map(({ name, line }) => `${name}@${line}`)).toEqual([
      "PORT@1",
      "HOST@2",
      "LOG_LEVEL@3",
      "PG_POOL_MAX@4",
      "PLANTSTORE_URL@5",
      "PLANTSTORE_TEST_DATABASE_URL@6",
      "PLANTSTORE_CORS_ORIGINS@7",
    ]);
  });

  it("reads Lua's os.getenv", () => {
    expect(envReadsIn('local n = os.getenv("BENCH_THREADS")', "bench/lua/x.lua").map((read) => read.name)).toEqual([
      "BENCH_THREADS",
    ]);
  });
});

describe("checkEnvVars", () => {
  const operating = (rows: string): VariableTable => ({
    file: "docs/operating.md",
    heading: "## Configuration",
    markdown: `# Operating\n\n## Configuration\n\n| variable | default | meaning |\n| --- | --- | --- |\n${rows}\n## Next\n`,
    readBy: "the server, the CLI and the benchmark",
  });
  const testing: VariableTable = {
    file: "docs/testing.md",
    heading: "## Variables",
    markdown: "## Variables\n\n| variable | meaning |\n| --- | --- |\n| `CI` | true in CI |\n",
    readBy: "the tests and CI",
  };
  const reads = [
    { name: "PORT", file: "apps/server/src/config.ts", line: 3 },
    { name: "CI", file: "tooling/vitest/src/optional.ts", line: 9 },
  ];

  it("passes when every read variable has exactly one row and every row is read", () => {
    expect(checkEnvVars(reads, [operating("| `PORT` | 3000 | port |\n"), testing])).toEqual([]);
  });

  it("says which variable is undocumented, who reads it and where to add it", () => {
    const withCors = [...reads, { name: "PLANTSTORE_CORS_ORIGINS", file: "apps/server/src/config.ts", line: 40 }];
    expect(checkEnvVars(withCors, [operating("| `PORT` | 3000 | port |\n"), testing])).toEqual([
      'PLANTSTORE_CORS_ORIGINS is read by apps/server/src/config.ts:40 but documented nowhere: add a row for it (its default and what it does) to docs/operating.md, the table under "## Configuration", or, if only the tests and CI read it, to docs/testing.md, the table under "## Variables"',
    ]);
  });

  it("says which documented variable no code reads", () => {
    expect(checkEnvVars(reads, [operating("| `PORT` | 3000 | port |\n| `OLD_KNOB` | 1 | gone |\n"), testing])).toEqual([
      "docs/operating.md:8: OLD_KNOB is documented but no code reads it; remove its row, or read it in the code",
    ]);
  });

  it("refuses a row that is not a variable, a variable documented twice, and a missing table", () => {
    expect(
      checkEnvVars(reads, [operating("| `PORT` | 3000 | port |\n| Port | 3000 | port |\n| `CI` | | |\n"), testing]),
    ).toEqual([
      'docs/operating.md:8: the first cell of each row of docs/operating.md, the table under "## Configuration" must be a variable in backticks, got Port',
      "docs/testing.md:5: CI is documented twice (also in docs/operating.md:9); keep one row",
    ]);
    expect(checkEnvVars(reads, [{ ...operating(""), markdown: "# Operating\n" }, testing])[0]).toBe(
      'docs/operating.md has no table under the heading "## Configuration": it must hold the variables the server, the CLI and the benchmark read',
    );
  });
});
