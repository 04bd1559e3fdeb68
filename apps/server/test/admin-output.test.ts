import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { MAIN } from "../src/test-support/test-server.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

it("an admin command whose reader stops early (`tokens list | head -0`) ends quietly, without a stack trace", async () => {
  const directory = mkdtempSync(join(tmpdir(), "plantstore-admin-"));
  directories.push(directory);
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(directory, "plants.db")}` };
  expect(spawnSync(process.execPath, [MAIN, "tokens", "create", "ci"], { env }).status).toBe(0);

  const child = spawn(process.execPath, [MAIN, "tokens", "list"], { env, stdio: ["ignore", "pipe", "pipe"] });
  // The reader goes away before the command has written its first line.
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));

  expect(stderr).not.toMatch(/EPIPE|node:events|\n\s+at /);
  expect(status).toBe(0);
});
