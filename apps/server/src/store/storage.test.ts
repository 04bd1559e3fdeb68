import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, it } from "vitest";
import { openStorage } from "./open-storage.js";
import type { StorageOptions } from "./storage.js";
import { createTestSchema, resolvePostgresTestTarget } from "../test-support/test-database.js";
import { describeStorage } from "../test-support/storage-suite.js";

const options: StorageOptions = {
  poolMax: 10,
  connectionTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  logger: pino({ level: "silent" }),
};

describeStorage("SQLite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "plantstore-storage-"));
  return {
    open: () => openStorage(`sqlite:${join(dir, "plants.db")}`, options),
    destroy: () => rm(dir, { recursive: true, force: true }),
  };
});

const postgres = await resolvePostgresTestTarget();
if (postgres.kind === "ready") {
  // Each test gets its own schema, dropped afterwards: parallel runs and other suites never meet.
  describeStorage("PostgreSQL", async () => {
    const schema = await createTestSchema(postgres.url);
    return { open: () => openStorage(schema.url, options), destroy: () => schema.drop() };
  });
} else if (postgres.kind === "failed") {
  describe("storage: PostgreSQL", () => {
    it("is reachable", () => {
      throw new Error(postgres.reason);
    });
  });
} else {
  console.warn(`PostgreSQL suite skipped: ${postgres.reason}`);
}
