import pg from "pg";
import { pino } from "pino";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterEach, describe, expect, it } from "vitest";
import { StorageUnavailableError, type StorageOptions } from "../storage.js";
import { describePostgresLocation } from "./connection.js";
import { openPostgresStorage } from "./storage.js";
import { UnstorableTextError } from "./storable-text.js";
import { TcpProxy } from "../../test-support/tcp-proxy.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../../test-support/test-database.js";

const options: StorageOptions = {
  poolMax: 4,
  connectionTimeoutMs: 2_000,
  idleTimeoutMs: 30_000,
  logger: pino({ level: "silent" }),
};

describe("describePostgresLocation", () => {
  it("never shows the password or the query string", () => {
    expect(describePostgresLocation("postgres://app:s3cret@db.example:6432/plants?password=x&sslmode=require")).toBe(
      "postgres://app@db.example:6432/plants",
    );
  });
});

describe("openPostgresStorage when nothing listens", () => {
  it("fails with StorageUnavailableError naming where it looked, not the password", async () => {
    const opening = openPostgresStorage("postgres://app:s3cret@127.0.0.1:1/plants", options);
    await expect(opening).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(opening).rejects.toThrow(
      /^cannot reach PostgreSQL at postgres:\/\/app@127\.0\.0\.1:1\/plants: ECONNREFUSED/,
    );
    await expect(opening).rejects.not.toThrow(/s3cret/);
  });
});

const target = await postgresTestTarget();
describeWith(target, "PostgreSQL-specific behaviour", (url) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  async function freshSchema(): Promise<TestSchema> {
    const schema = await createTestSchema(url);
    cleanups.push(() => schema.drop());
    return schema;
  }
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("refuses a NUL or a lone surrogate before the database sees it", async () => {
    const schema = await freshSchema();
    const storage = await openPostgresStorage(schema.url, options);
    cleanups.push(() => storage.close());
    await expect(storage.plants.create({ id: 1n, name: "Fe\u0000rn" })).rejects.toBeInstanceOf(UnstorableTextError);
    await expect(storage.plants.create({ id: 2n, name: "Fern", tag: "in\u0000door" })).rejects.toBeInstanceOf(
      UnstorableTextError,
    );
    await expect(storage.plants.create({ id: 3n, name: "Fe\uD800rn" })).rejects.toBeInstanceOf(UnstorableTextError);
    expect(await storage.plants.count()).toBe(0);

    // Why the guard exists: unguarded, PostgreSQL refuses NUL with a database error (a 500), and
    // node-postgres silently stores a lone surrogate as U+FFFD (a different name than acknowledged).
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    cleanups.push(() => client.end());
    await expect(client.query("SELECT $1::text", ["Fe\u0000rn"])).rejects.toMatchObject({ code: "22021" });
    const mangled = await client.query<{ t: string }>("SELECT $1::text AS t", ["Fe\uD800rn"]);
    expect(mangled.rows[0]?.t).toBe("Fe\uFFFDrn");
  });

  it("commits every write with synchronous_commit=on, even when the connection string turns it off", async () => {
    const schema = await freshSchema();
    const url = new URL(schema.url);
    url.searchParams.set("options", `${url.searchParams.get("options")} -c synchronous_commit=off`);
    const storage = await openPostgresStorage(url.toString(), options);
    cleanups.push(() => storage.close());
    // A trigger records the setting each write transaction really runs with.
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`
      CREATE TABLE seen_settings (value text NOT NULL);
      CREATE FUNCTION record_setting() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO seen_settings VALUES (current_setting('synchronous_commit')); RETURN NULL; END $$;
      CREATE TRIGGER plants_setting AFTER INSERT OR DELETE ON plants FOR EACH STATEMENT EXECUTE FUNCTION record_setting();
      CREATE TRIGGER tokens_setting AFTER INSERT OR UPDATE ON api_tokens FOR EACH STATEMENT EXECUTE FUNCTION record_setting();`);
    await Promise.all(Array.from({ length: 8 }, (_, index) => storage.plants.create({ id: BigInt(index), name: "p" })));
    await Promise.all(Array.from({ length: 8 }, (_, index) => storage.plants.delete(BigInt(index))));
    const token = await storage.tokens.add(Buffer.alloc(32, 7), "t", ["plants:read"]);
    await storage.tokens.revoke(token.id);
    const seen = await client.query<{ value: string }>("SELECT value FROM seen_settings");
    expect(seen.rows.length).toBeGreaterThanOrEqual(4);
    expect(new Set(seen.rows.map((row) => row.value))).toEqual(new Set(["on"]));
  });

  it("several instances starting at once apply each migration exactly once", async () => {
    const schema = await freshSchema();
    const storages = await Promise.all(Array.from({ length: 5 }, () => openPostgresStorage(schema.url, options)));
    cleanups.push(() => Promise.all(storages.map((storage) => storage.close())));
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    cleanups.push(() => client.end());
    const applied = await client.query("SELECT version FROM plantstore_migrations ORDER BY version");
    // Every version once, none skipped (a version applied twice would fail its primary key, and its instance with it).
    const versions = applied.rows.map((row: { version: number }) => row.version);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, index) => index + 1));
    expect(versions.length).toBeGreaterThanOrEqual(4);
  });

  it("reports an outage as StorageUnavailableError and recovers by itself when the database is back", async () => {
    const schema = await freshSchema();
    const base = new URL(schema.url);
    const proxy = new TcpProxy(base.hostname, Number(base.port || 5432));
    const port = await proxy.start();
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(schema.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(port);
    const storage = await openPostgresStorage(viaProxy.toString(), options);
    cleanups.push(() => storage.close());
    expect((await storage.plants.create({ id: 1n, name: "before" })).kind).toBe("created");

    await proxy.cut();
    const during = await Promise.allSettled([
      storage.plants.create({ id: 2n, name: "during" }),
      storage.plants.find(1n),
      storage.tokens.changesSince(),
    ]);
    for (const result of during) {
      expect(result.status).toBe("rejected");
      if (result.status === "rejected") expect(result.reason).toBeInstanceOf(StorageUnavailableError);
    }
    expect(await storage.ping()).toBe(false);

    await proxy.restore();
    expect(await storage.ping()).toBe(true);
    expect((await storage.plants.create({ id: 2n, name: "after" })).kind).toBe("created");
    expect(await storage.plants.find(1n)).toEqual({ id: 1n, name: "before" });
  });
});
