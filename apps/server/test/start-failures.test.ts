import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { findOnPath } from "@plantstore/vitest-config/optional";
import { MAIN, TOKEN } from "../src/test-support/test-server.js";

const TIMEOUT = 300_000;
// Each test here starts Node processes (the server, an admin command): a start took up to 40 s with
// both cores busy. The suite's 30 s is a deadline for a hang, and these need a larger one.
vi.setConfig({ testTimeout: TIMEOUT });

/**
 * Permission problems at start, each reported as what it is. Run as an unprivileged user: as root,
 * the server runs as root without any capability (util-linux's `setpriv` empties the bounding and
 * inheritable sets, so node starts with none), for whom read-only directories and files are
 * unwritable and low ports are refused as for anyone else. Not as `nobody`: nobody cannot reach Node
 * or the built server in a checkout under a folder only its owner may enter (/root, a 0700 home).
 */
const asRoot = process.getuid?.() === 0;
const setpriv = asRoot ? findOnPath("setpriv") : undefined;
const DROP_EVERY_CAPABILITY = ["--bounding-set=-all", "--inh-caps=-all"];
const root = mkdtempSync(join(tmpdir(), "plantstore-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function start(env: Record<string, string>) {
  const [command, args] =
    setpriv === undefined ? [process.execPath, [MAIN]] : [setpriv, [...DROP_EVERY_CAPABILITY, process.execPath, MAIN]];
  const result = spawnSync(command, args, {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", PLANTSTORE_TOKENS: TOKEN, ...env },
    encoding: "utf8",
    // Only a hung start is cut: one took 40 s with both cores busy.
    timeout: TIMEOUT - 30_000,
  });
  if (result.error !== undefined)
    throw new Error(`could not start ${command} ${args.join(" ")}: ${result.error.message}`);
  return result;
}

/** A directory this user may read but not write. */
function readOnlyDirectory(name: string): string {
  const directory = join(root, name);
  mkdirSync(directory);
  chmodSync(directory, 0o555);
  return directory;
}

function unprivilegedPortStart(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_unprivileged_port_start", "utf8"));
  } catch {
    return 1024;
  }
}

// As root without setpriv, root's permissions would let every start succeed: say so and skip.
const describeUnprivileged =
  asRoot && setpriv === undefined
    ? (console.warn(
        "setpriv not found: skipping the start-failure tests, which as root run the server without capabilities through it (util-linux)",
      ),
      describe.skip)
    : describe;

describeUnprivileged("a start that is not allowed something says what", () => {
  it("names the data directory it cannot create (not the port)", () => {
    const parent = readOnlyDirectory("no-mkdir");
    const result = start({ DATABASE_URL: `sqlite:${join(parent, "data", "plants.db")}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `plantstore: could not start: cannot create the data directory ${join(parent, "data")}: ${parent} is not writable by this user\n`,
    );
  });

  it("names the database directory it cannot write in", () => {
    const directory = readOnlyDirectory("no-write");
    const result = start({ DATABASE_URL: `sqlite:${join(directory, "plants.db")}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^plantstore: could not start: cannot open the SQLite database \\S+plants\\.db: its directory \\S+ is not writable`,
      ),
    );
    expect(result.stderr).not.toMatch(/listen/);
  });

  it("names a database file it cannot write", () => {
    const directory = join(root, "file-read-only");
    mkdirSync(directory);
    chmodSync(directory, 0o777);
    writeFileSync(join(directory, "plants.db"), "");
    chmodSync(join(directory, "plants.db"), 0o444);
    const result = start({ DATABASE_URL: `sqlite:${join(directory, "plants.db")}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^plantstore: could not start: cannot open the SQLite database \S+: the file is not readable and writable/,
    );
  });

  it.runIf(unprivilegedPortStart() > 1)("says a privileged port is not allowed", () => {
    const directory = join(root, "writable");
    mkdirSync(directory);
    chmodSync(directory, 0o777);
    const result = start({ DATABASE_URL: `sqlite:${join(directory, "plants.db")}`, PORT: "1" });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "plantstore: not allowed to listen on 127.0.0.1:1 (a port below 1024 needs privileges)\n",
    );
  });
});
