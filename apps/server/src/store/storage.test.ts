import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describeWith } from "@plantstore/vitest-config/optional";
import { openStorage } from "./open-storage.js";
import type { StorageOptions } from "./storage.js";
import { createTestSchema, postgresTestTarget } from "../test-support/test-database.js";
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

// Each test gets its own schema, dropped afterwards: parallel runs and other suites never meet.
describeWith(await postgresTestTarget(), "the storage contract on PostgreSQL", (url) => {
  describeStorage("PostgreSQL", async () => {
    const schema = await createTestSchema(url);
    return { open: () => openStorage(schema.url, options), destroy: () => schema.drop() };
  });
});
