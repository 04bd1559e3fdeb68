import { spawn } from "node:child_process";
import { findOnPath, optionalTool } from "@plantstore/vitest-config/optional";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, afterEach, expect, it } from "vitest";
import { ErrorCode } from "@plantstore/contract";
import { sqliteBackend } from "../src/test-support/databases.js";
import { killSpawnedServers, spawnServer, stringify, TOKEN } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * Another process holds the SQLite file's WAL locks (a stuck backup tool, a crashed process's
 * recovery, an operator's sqlite3 shell): SQLite then waits for them in its own retry loop, up to
 * ~10 s per read whatever busy_timeout says. That wait was on the event loop's thread, and every
 * request, /healthz and the token refresh waited with it while /readyz said ready; the read then
 * answered 500. Reads now wait on the reader thread, and a watchdog turns the wait into a 503.
 * Node cannot take a POSIX record lock itself: perl (in every Debian, perl-base) holds it.
 */
const perl = optionalTool({
  name: "perl",
  isAvailable: () => findOnPath("perl") !== undefined,
  install: "apt-get install perl-base",
});
const backend = sqliteBackend();
afterEach(killSpawnedServers);
afterAll(() => backend.cleanup());

/** Holds exclusive locks on the WAL's lock bytes of the -shm file until released. */
function lockWal(path: string): Promise<{ release(): Promise<void> }> {
  const child = spawn("perl", [
    "-MFcntl",
    "-e",
    `open(my $f, "+<", $ARGV[0]) or die "open: $!";
     my $lock = pack("s s x4 q q i x4", F_WRLCK, 0, 120, 8, 0);
     fcntl($f, F_SETLK, $lock) or die "lock: $!";
     $| = 1; print "locked\\n"; <STDIN>;`,
    `${path}-shm`,
  ]);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.once("data", () =>
      resolve({
        async release() {
          child.stdin.end();
          await exited;
        },
      }),
    );
    void exited.then(() => reject(new Error(`perl could not lock: ${err}`)));
  });
}

describeWith(perl, "SQLite locked by another process", () => {
  it("answers reads 503 promptly while the lock lasts, keeps /healthz answering, says not ready, then recovers", async () => {
    const databaseUrl = await backend.freshDatabaseUrl();
    const server = await spawnServer({ DATABASE_URL: databaseUrl });
    const headers = { authorization: `Bearer ${TOKEN}` };
    const created = await fetch(`${server.url}/plants`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: stringify({ id: 1n, name: "Fern" }),
    });
    expect(created.status).toBe(200);

    const lock = await lockWal(databaseUrl.replace(/^sqlite:/, ""));
    // The first read meets the lock: it waits on the reader thread, not on the event loop, so
    // /healthz answers while it waits; the watchdog then answers it 503 (after 0.5 to 1 s).
    const firstStarted = performance.now();
    let firstAnswered = false;
    const firstResponse = fetch(`${server.url}/plants/1`, { headers }).finally(() => (firstAnswered = true));
    const healthWhileWaiting = await fetch(`${server.url}/healthz`);
    expect(healthWhileWaiting.status).toBe(200);
    expect(firstAnswered).toBe(false);
    const first = await firstResponse;
    const firstMs = performance.now() - firstStarted;
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ error: ErrorCode.STORAGE_UNAVAILABLE });
    const started = performance.now();
    const reads = await Promise.all(Array.from({ length: 5 }, () => fetch(`${server.url}/plants/1`, { headers })));
    const readMs = performance.now() - started;
    expect(reads.map((response) => response.status)).toEqual([503, 503, 503, 503, 503]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect(server.output()).toContain("SQLite is locked by another process: refusing requests until it can be read");

    await lock.release();
    await waitFor(
      "reads to succeed again",
      async () => (await fetch(`${server.url}/plants/1`, { headers })).status === 200,
    );
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(server.output()).toContain("SQLite can be read again: serving");
    expect(server.child.exitCode).toBeNull();
    console.info(
      `sqlite-locked test: first read refused after ${firstMs.toFixed(0)} ms, five more in ${readMs.toFixed(0)} ms while the lock lasted`,
    );
  }, 60_000);
});
