// Every environment variable the code reads is documented, and every documented one is read.
// The server's, the CLI's and the benchmark's variables belong in docs/operating.md's configuration
// table; the ones only the tests and CI read in docs/testing.md's table. Either table will do for the
// check (a variable is documented once); each row of both must name a variable some code reads.
import { tableUnderHeading } from "./markdown.js";

/** Where a variable is read. */
export interface EnvRead {
  readonly name: string;
  /** Relative path of the file that reads it, and the line. */
  readonly file: string;
  readonly line: number;
}

/** The platform's own variables, which code may read but this project does not define. */
export const PLATFORM_VARIABLES: ReadonlySet<string> = new Set(["PATH", "HOME", "TMPDIR", "TERM", "NO_COLOR"]);

const NAME = "[A-Z][A-Z0-9_]*";
/** The ways this repository's code reads a variable. */
const READ_PATTERNS: readonly RegExp[] = [
  // process.env.PORT, env.PORT, import.meta.env.PORT
  new RegExp(`\\benv\\??\\.(${NAME})\\b`, "g"),
  // env["PORT"], process.env['PORT']
  new RegExp(`\\benv\\??\\.?\\[\\s*["'\`](${NAME})["'\`]\\s*\\]`, "g"),
  // integer(env, "PORT", …), commaList(env, "PLANTSTORE_TOKENS"): helpers that take the environment and a name
  new RegExp(`\\benv\\s*,\\s*["'\`](${NAME})["'\`]`, "g"),
  // commander's new Option(…).env("PLANTSTORE_URL")
  new RegExp(`\\.env\\(\\s*["'\`](${NAME})["'\`]\\s*\\)`, "g"),
  // const TEST_DATABASE_ENV = "PLANTSTORE_TEST_DATABASE_URL"
  new RegExp(`_ENV\\s*=\\s*["'\`](${NAME})["'\`]`, "g"),
  // Lua: os.getenv("PLANTSTORE_…")
  new RegExp(`os\\.getenv\\(\\s*["'](${NAME})["']\\s*\\)`, "g"),
  // Any string that is exactly one of this project's names: read through some other helper.
  /["'`]((?:PLANTSTORE|PG)_[A-Z0-9_]+)["'`]/g,
];

/** The variables a source file reads, each with its first line. */
export function envReadsIn(source: string, file: string): EnvRead[] {
  const reads = new Map<string, EnvRead>();
  source.split(/\r?\n/).forEach((text, index) => {
    for (const pattern of READ_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const name = match[1];
        if (name === undefined || PLATFORM_VARIABLES.has(name) || reads.has(name)) continue;
        reads.set(name, { name, file, line: index + 1 });
      }
    }
  });
  return [...reads.values()];
}

/** A Markdown table of variables: its file, the heading it sits under, and the file's text. */
export interface VariableTable {
  readonly file: string;
  readonly heading: string;
  readonly markdown: string | undefined;
  /** Who reads the variables that belong in it ("the tests and CI"), for the message that says where to add one. */
  readonly readBy: string;
}

export function checkEnvVars(reads: readonly EnvRead[], tables: readonly VariableTable[]): string[] {
  const problems: string[] = [];
  const documented = new Map<string, string>();
  for (const table of tables) {
    const where = `${table.file}, the table under "${table.heading}"`;
    if (table.markdown === undefined) {
      problems.push(
        `${table.file} is missing: it must hold the variables ${table.readBy} read in a table under "${table.heading}"`,
      );
      continue;
    }
    const rows = tableUnderHeading(table.markdown, table.heading);
    if (rows === undefined || rows.length === 0) {
      problems.push(
        `${table.file} has no table under the heading "${table.heading}": it must hold the variables ${table.readBy} read`,
      );
      continue;
    }
    for (const { line, cells } of rows) {
      const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0] ?? "")?.[1];
      if (name === undefined) {
        problems.push(
          `${table.file}:${line}: the first cell of each row of ${where} must be a variable in backticks, got ${cells[0]}`,
        );
        continue;
      }
      const earlier = documented.get(name);
      if (earlier !== undefined)
        problems.push(`${table.file}:${line}: ${name} is documented twice (also in ${earlier}); keep one row`);
      documented.set(name, `${table.file}:${line}`);
    }
  }

  const readers = new Map<string, EnvRead[]>();
  for (const read of reads) readers.set(read.name, [...(readers.get(read.name) ?? []), read]);
  const [main, ...others] = tables;
  for (const [name, where] of [...readers].sort(([a], [b]) => a.localeCompare(b))) {
    if (documented.has(name)) continue;
    const files = where.map((read) => `${read.file}:${read.line}`).join(", ");
    problems.push(
      `${name} is read by ${files} but documented nowhere: add a row for it (its default and what it does) to ` +
        `${main?.file ?? "the configuration table"}, the table under "${main?.heading ?? ""}"` +
        others
          .map((table) => `, or, if only ${table.readBy} read it, to ${table.file}, the table under "${table.heading}"`)
          .join(""),
    );
  }
  for (const [name, where] of documented) {
    if (!readers.has(name)) {
      problems.push(`${where}: ${name} is documented but no code reads it; remove its row, or read it in the code`);
    }
  }
  return problems;
}
