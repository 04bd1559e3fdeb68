// The repository as the checks read it: its committed (and new, not ignored) Markdown files and the
// source files whose environment reads must be documented.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
  return dir;
}

export function readRelative(path: string): string | undefined {
  const full = join(repositoryRoot, path);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, "utf8") : undefined;
}

export function existsRelative(path: string): boolean {
  return existsSync(join(repositoryRoot, path));
}

const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", ".git", ".turbo", "tmp", "test-results"]);

/** Markdown files git tracks or would track (new, not ignored); every .md outside skipped directories without git. */
export function markdownFiles(): string[] {
  try {
    const output = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md"], {
      cwd: repositoryRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return output.split("\n").filter((path) => path !== "" && existsRelative(path));
  } catch {
    return walk(repositoryRoot, (path) => path.endsWith(".md"));
  }
}

/**
 * The code whose variables must be documented: the apps', packages', bench's and tooling's sources
 * and tests, bench's Lua scripts. This package is left out: its tests hold made-up variables.
 */
export function codeFiles(): string[] {
  const code = /\.(?:[cm]?[jt]s|tsx|lua)$/;
  return walk(repositoryRoot, (path) => code.test(path) && !path.endsWith(".generated.ts")).filter(
    (path) => /^(apps|packages|bench|tooling)\//.test(path) && !path.startsWith("tooling/docs-check/"),
  );
}

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name) && !entry.name.startsWith("."))
        found.push(...walk(join(dir, entry.name), keep));
    } else {
      const path = relative(repositoryRoot, join(dir, entry.name)).replace(/\\/g, "/");
      if (keep(path)) found.push(path);
    }
  }
  return found;
}
