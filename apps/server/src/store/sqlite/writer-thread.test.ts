import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { afterEach, expect, it } from "vitest";
import { OutcomeUnknownError, type Storage } from "../storage.js";
import { openSqliteStorage } from "./storage.js";

let dir: string | undefined;
let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The writer thread behind the storage's group commit (private: reached here to stop it). */
function writerThread(of: Storage): Worker {
  const internals = of.plants as unknown as { groupCommit: { writer: { worker?: Worker } } };
  const worker = internals.groupCommit.writer.worker;
  if (worker === undefined) throw new Error("the writer thread is not running");
  return worker;
}

// The writer thread stops (killed, out of memory) while it holds a batch: the batch may have been
// committed before it stopped, so its writes must be told "outcome unknown", never "not done".
it("answers writes in flight when the writer thread stops with OutcomeUnknownError, and restarts it", async () => {
  dir = await mkdtemp(join(tmpdir(), "plantstore-writer-"));
  storage = openSqliteStorage(`sqlite:${join(dir, "plants.db")}`, {});
  expect((await storage.plants.create({ id: 1n, name: "before" })).kind).toBe("created");

  const inFlight = storage.plants.delete(1n);
  // The batch goes to the thread in the next check phase; stop the thread right after it is sent.
  await new Promise((resolve) => setImmediate(resolve));
  await writerThread(storage).terminate();
  // On an idle machine the thread may commit the batch before it stops: then the delete is known
  // and answered as done. What it must never be is a refusal that says nothing happened. (Holding
  // the write lock from another connection to pin the race crashes the process: terminating a
  // thread inside a better-sqlite3 call is a fatal error.)
  const outcome = await inFlight.then(
    (result) => result.kind,
    (error: unknown) => (error instanceof OutcomeUnknownError ? "unknown" : error),
  );
  expect(["deleted", "unknown"]).toContain(outcome);

  // A new writer thread takes over.
  expect((await storage.plants.create({ id: 2n, name: "after" })).kind).toBe("created");
  expect(await storage.plants.find(2n)).toEqual({ id: 2n, name: "after" });
});
