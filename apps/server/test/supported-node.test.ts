import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { availability, describeWith, findOnPath, type Probe } from "@plantstore/vitest-config/optional";
import { afterAll, describe, expect, it } from "vitest";
import { judgeNode, SUPPORTED_LINES } from "../src/supported-node.js";
import { MAIN } from "../src/test-support/test-server.js";

const repository = fileURLToPath(new URL("../../../", import.meta.url));

describe("which Node.js runs Plant Store", () => {
  it("refuses every line before 22.13 in one line, and names the lines it needs", () => {
    expect(judgeNode("20.20.2")).toEqual({
      refuse: "Plant Store needs Node.js 22, 24 or 26; this is Node 20.20.2, past its end of life",
    });
    expect(judgeNode("18.20.8")).toHaveProperty("refuse");
    expect(judgeNode("21.7.3")).toHaveProperty("refuse");
    expect(judgeNode("22.12.0")).toEqual({
      refuse: "Plant Store needs Node.js 22, 24 or 26; this is Node 22.12.0: update to 22.13 or later",
    });
  });

  it("runs on the maintained LTS lines without a word", () => {
    for (const version of ["22.23.3", "24.0.0", "24.21.0", "26.0.0", "26.10.0"]) {
      expect(judgeNode(version)).toBeNull();
    }
  });

  it("warns, and runs, on a short-lived or newer line", () => {
    for (const version of ["23.11.1", "25.2.0", "28.0.0"]) {
      expect(judgeNode(version)).toEqual({
        warn: `Plant Store is tested on Node.js 22, 24, 26; this is Node ${version}`,
      });
    }
  });

  it("says what package.json's engines say, for the workspace and for the server", () => {
    const engines = SUPPORTED_LINES.map(({ major, minor }) => `^${major}.${minor}.0`).join(" || ");
    for (const manifest of ["package.json", "apps/server/package.json"]) {
      const { engines: declared } = JSON.parse(readFileSync(join(repository, manifest), "utf8")) as {
        engines?: { node?: string };
      };
      expect(declared?.node, manifest).toBe(engines);
    }
  });
});

/** A Node.js older than 22 to try the refusal with: PLANTSTORE_OLD_NODE, else `node` on this machine's own paths. */
function oldNode(): Probe<{ path: string; version: string }> {
  const candidates = [process.env.PLANTSTORE_OLD_NODE, "/usr/bin/node", "/usr/local/bin/node", findOnPath("node")];
  for (const candidate of candidates) {
    if (candidate === undefined || !existsSync(candidate)) continue;
    try {
      const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
      if (Number(/^v(\d+)/.exec(version)?.[1]) < 22) return { found: { path: candidate, version: version.slice(1) } };
    } catch {
      // not a Node that runs here: try the next
    }
  }
  return { missing: "no Node.js older than 22 found", hint: "set PLANTSTORE_OLD_NODE to one" };
}

describeWith(availability("an old Node.js", oldNode()), "under a Node.js past its end of life", (old) => {
  // A checkout with nothing installed: what a fresh clone has of the scripts that `npm start` and
  // `npm test` run first, and the rule they import.
  const checkout = mkdtempSync(join(tmpdir(), "plantstore-old-node-"));
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));
  for (const file of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "tooling/scripts"]) {
    cpSync(join(repository, file), join(checkout, file), { recursive: true });
  }
  mkdirSync(join(checkout, "apps/server/src"), { recursive: true });
  cpSync(join(repository, "apps/server/src/supported-node.js"), join(checkout, "apps/server/src/supported-node.js"));

  const refusal = () => `Plant Store needs Node.js 22, 24 or 26; this is Node ${old.version}, past its end of life`;
  const run = (args: string[], event?: string) =>
    spawnSync(old.path, args, {
      cwd: checkout,
      encoding: "utf8",
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(event === undefined ? {} : { npm_lifecycle_event: event }),
      },
    });

  it("npm start refuses in one line, before installing or building anything", () => {
    const result = run(["tooling/scripts/run-built.mjs", "@plantstore/server", "apps/server/dist/main.js"], "start");
    expect(result.stderr).toBe(`npm start: ${refusal()}\n`);
    expect(result.status).toBe(1);
    expect(existsSync(join(checkout, "node_modules"))).toBe(false);
  });

  it("npm test refuses in one line, before installing anything", () => {
    const result = run(["tooling/scripts/bootstrap.mjs"], "test");
    expect(result.stderr).toBe(`npm test: ${refusal()}\n`);
    expect(result.status).toBe(1);
    expect(existsSync(join(checkout, "node_modules"))).toBe(false);
  });

  it("the server itself refuses in one line, before it loads the SQLite addon", () => {
    const result = spawnSync(old.path, [MAIN], { encoding: "utf8", timeout: 60_000 });
    expect(result.stderr).toBe(`plantstore: ${refusal()}\n`);
    expect(result.status).toBe(1);
  });
});
