import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { availability, findOnPath, optionalTool } from "./optional.js";
import { onceForSkipAnnouncements } from "./skip-announcement.js";

const wrk = { name: "wrk", install: "apt-get install wrk" };

describe("optionalTool", () => {
  it("is ready when the tool is there", () => {
    expect(optionalTool({ ...wrk, isAvailable: () => true }, {})).toEqual({
      kind: "ready",
      name: "wrk",
      value: undefined,
    });
  });

  it("skips outside CI, saying how to install the tool", () => {
    expect(optionalTool({ ...wrk, isAvailable: () => false }, {})).toEqual({
      kind: "skipped",
      name: "wrk",
      message: "wrk not found: skipping the wrk tests (install it with `apt-get install wrk`)",
    });
  });

  it("fails under CI=true", () => {
    expect(optionalTool({ ...wrk, isAvailable: () => false }, { CI: "true" })).toEqual({
      kind: "failed",
      name: "wrk",
      message: "wrk not found, and CI=true requires the wrk tests: install it with `apt-get install wrk`",
    });
  });
});

describe("availability", () => {
  it("hands over what was found", () => {
    expect(availability("PostgreSQL", { found: "postgres://db/test" }, { CI: "true" })).toEqual({
      kind: "ready",
      name: "PostgreSQL",
      value: "postgres://db/test",
    });
  });

  it("says why without a hint", () => {
    const probe = { missing: "PLANTSTORE_TEST_DATABASE_URL is not set" };
    expect(availability("PostgreSQL", probe, {})).toMatchObject({
      kind: "skipped",
      message: "PLANTSTORE_TEST_DATABASE_URL is not set: skipping the PostgreSQL tests",
    });
    expect(availability("PostgreSQL", probe, { CI: "true" })).toMatchObject({
      kind: "failed",
      message: "PLANTSTORE_TEST_DATABASE_URL is not set, and CI=true requires the PostgreSQL tests",
    });
  });

  it("fails when the prerequisite is there but broken, even outside CI", () => {
    expect(availability("PostgreSQL", { broken: "PostgreSQL is unreachable: ECONNREFUSED" }, {})).toEqual({
      kind: "failed",
      name: "PostgreSQL",
      message: "PostgreSQL is unreachable: ECONNREFUSED",
    });
  });
});

describe("findOnPath", () => {
  const directory = mkdtempSync(join(tmpdir(), "vitest-config-onpath-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  writeFileSync(join(directory, "tool"), "#!/bin/sh\n");
  chmodSync(join(directory, "tool"), 0o755);
  writeFileSync(join(directory, "not-executable"), "");

  it("finds an executable in one of PATH's directories and answers its path", () => {
    expect(findOnPath("tool", ["/nonexistent", directory].join(delimiter))).toBe(join(directory, "tool"));
  });

  it("does not take a file that cannot be run, nor an empty PATH", () => {
    expect(findOnPath("not-executable", directory)).toBeUndefined();
    expect(findOnPath("tool", "")).toBeUndefined();
    expect(findOnPath("tool", undefined)).toBeUndefined();
  });
});

describe("onceForSkipAnnouncements", () => {
  it("lets the first of identical skip lines through and drops the repeats", () => {
    const filter = onceForSkipAnnouncements();
    const line = "wrk not found: skipping the wrk tests (install it with `apt-get install wrk`)\n";
    expect(filter(line, "stderr")).toBeUndefined();
    expect(filter(line, "stderr")).toBe(false);
    expect(
      filter("PLANTSTORE_TEST_DATABASE_URL is not set: skipping the PostgreSQL tests\n", "stderr"),
    ).toBeUndefined();
  });

  it("leaves every other console line alone", () => {
    const filter = onceForSkipAnnouncements();
    for (let i = 0; i < 2; i++) {
      expect(filter("some warning\n", "stderr")).toBeUndefined();
      expect(filter("wrk not found: skipping the wrk tests\n", "stdout")).toBeUndefined();
    }
  });
});
