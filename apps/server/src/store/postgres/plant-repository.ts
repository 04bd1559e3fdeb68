import type pg from "pg";
import type { NewPlant } from "@plantstore/contract";
import type { CreateOutcome, PlantRepository, StoredPlant } from "../storage.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { assertStorableText } from "./storable-text.js";

interface PlantRow {
  created?: boolean;
  id: bigint;
  name: string;
  tag: string | null;
}

/**
 * One statement decides: the INSERT either creates the row or does nothing because the id
 * exists, and the same statement returns the existing row for comparison. The database's unique
 * index is the only arbiter, so it holds across connections and server instances.
 */
const CREATE_SQL = `
  WITH inserted AS (
    INSERT INTO plants (id, name, tag) VALUES ($1::bigint, $2, $3)
    ON CONFLICT (id) DO NOTHING
    RETURNING id, name, tag
  )
  SELECT true AS created, id, name, tag FROM inserted
  UNION ALL
  SELECT false AS created, id, name, tag FROM plants
  WHERE id = $1::bigint AND NOT EXISTS (SELECT 1 FROM inserted)`;

const FIND_SQL = "SELECT id, name, tag FROM plants WHERE id = $1::bigint";

function toStoredPlant(row: PlantRow): StoredPlant {
  return row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag };
}

function sameContent(plant: NewPlant, existing: StoredPlant): boolean {
  return plant.name === existing.name && (plant.tag ?? null) === (existing.tag ?? null);
}

async function findPlant(pool: pg.Pool, id: bigint): Promise<StoredPlant | undefined> {
  const result = await pool.query<PlantRow>(FIND_SQL, [id.toString()]);
  const row = result.rows[0];
  return row ? toStoredPlant(row) : undefined;
}

async function findOrFail(pool: pg.Pool, id: bigint): Promise<StoredPlant> {
  const found = await findPlant(pool, id);
  // Plants are never deleted, so a conflicting insert that committed stays visible.
  if (!found) throw new Error(`plant ${id} conflicted on insert but cannot be read back`);
  return found;
}

export class PostgresPlantRepository implements PlantRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async create(plant: NewPlant): Promise<CreateOutcome> {
    assertStorableText("name", plant.name);
    assertStorableText("tag", plant.tag);
    // Autocommit: the promise resolves after COMMIT, and with synchronous_commit=on (set on every
    // session) after the commit record is flushed to disk.
    return this.db.run("create plant", async (pool) => {
      const result = await pool.query<PlantRow>(CREATE_SQL, [plant.id.toString(), plant.name, plant.tag ?? null]);
      const row = result.rows[0];
      if (row?.created) return { kind: "created", plant: toStoredPlant(row) };
      // No row at all: another transaction inserted this id after our statement's snapshot was
      // taken (ON CONFLICT waited for it to commit, then did nothing). A new statement sees it.
      const existing = row ? toStoredPlant(row) : await findOrFail(pool, plant.id);
      return sameContent(plant, existing) ? { kind: "replayed", plant: existing } : { kind: "conflict", existing };
    });
  }

  find(id: bigint): Promise<StoredPlant | undefined> {
    return this.db.run("find plant", (pool) => findPlant(pool, id));
  }

  count(): Promise<number> {
    return this.db.run("count plants", async (pool) => {
      const result = await pool.query<{ count: bigint }>("SELECT count(*) AS count FROM plants");
      return Number(result.rows[0]?.count ?? 0n);
    });
  }
}
