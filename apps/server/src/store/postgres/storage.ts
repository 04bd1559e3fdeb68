import type pg from "pg";
import { StorageUnavailableError, type Storage, type StorageOptions } from "../storage.js";
import { createPool, describePostgresLocation } from "./connection.js";
import { PostgresDatabase } from "./database.js";
import { describeDatabaseError, isUnavailable } from "./errors.js";
import { applyMigrations } from "./migrations.js";
import { PostgresPlantRepository } from "./plant-repository.js";
import { PostgresTokenRepository } from "./token-repository.js";
import { PostgresWebhookRepository } from "./webhook-repository.js";
import { PostgresChangeLog } from "./change-log.js";

/** Storage on PostgreSQL: many server instances may share one database (and one schema). */
export class PostgresStorage implements Storage {
  readonly kind = "postgres" as const;
  readonly plants: PostgresPlantRepository;
  readonly tokens: PostgresTokenRepository;
  readonly webhooks: PostgresWebhookRepository;
  readonly changes: PostgresChangeLog;
  private readonly db: PostgresDatabase;

  constructor(
    pool: pg.Pool,
    readonly location: string,
    options: StorageOptions,
  ) {
    this.db = new PostgresDatabase(pool);
    this.plants = new PostgresPlantRepository(this.db, createBatchSlotsFor(options), options);
    this.tokens = new PostgresTokenRepository(this.db);
    this.webhooks = new PostgresWebhookRepository(this.db);
    this.changes = new PostgresChangeLog(this.db);
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.run("ping", (pool) => pool.query("SELECT 1"));
      return true;
    } catch {
      return false;
    }
  }

  /** Waits for queries in flight (each is its own committed transaction), then disconnects. */
  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * Group-commit batches in flight at once. Fewer than the pool's connections, so that reads,
 * token checks and readiness probes always find one; the rest of the waiting creates queue into
 * the next batch, which is what makes the batches (and the throughput) grow under load.
 */
function createBatchSlotsFor(options: StorageOptions): number {
  return Math.max(1, Math.min(options.poolMax - 1, 2));
}

/**
 * Opens the pool, checks the database answers, and applies pending migrations (serialized across
 * instances by an advisory lock). Fails with StorageUnavailableError when PostgreSQL cannot be
 * reached, with a message that names where it looked (never the password), and with
 * SchemaNewerError's message when a newer server migrated the database.
 */
export async function openPostgresStorage(connectionString: string, options: StorageOptions): Promise<PostgresStorage> {
  const location = describePostgresLocation(connectionString);
  const pool = createPool(connectionString, options);
  try {
    await applyMigrations(pool, options.logger);
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (isUnavailable(error)) {
      throw new StorageUnavailableError(`cannot reach PostgreSQL at ${location}: ${describeDatabaseError(error)}`, {
        cause: error,
      });
    }
    throw new Error(`cannot prepare PostgreSQL at ${location}: ${describeDatabaseError(error)}`, { cause: error });
  }
  const storage = new PostgresStorage(pool, location, options);
  options.logger.info({ location, poolMax: options.poolMax }, "PostgreSQL storage ready");
  return storage;
}
