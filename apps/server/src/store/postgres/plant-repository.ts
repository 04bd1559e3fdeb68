import type pg from "pg";
import type { NewPlant } from "@plantstore/contract";
import type { CreateOutcome, PlantRepository, StoredPlant } from "../storage.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { assertStorableText } from "./storable-text.js";
import { CreateBatcher } from "./create-batcher.js";

interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

const FIND_SQL = "SELECT id, name, tag FROM plants WHERE id = $1::bigint";

function toStoredPlant(row: PlantRow): StoredPlant {
  return row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag };
}

async function findPlant(pool: pg.Pool, id: bigint): Promise<StoredPlant | undefined> {
  const result = await pool.query<PlantRow>(FIND_SQL, [id.toString()]);
  const row = result.rows[0];
  return row ? toStoredPlant(row) : undefined;
}

export class PostgresPlantRepository implements PlantRepository {
  private readonly batcher: CreateBatcher;

  constructor(
    private readonly db: PostgresDatabase,
    batchSlots: number,
  ) {
    this.batcher = new CreateBatcher(db, batchSlots);
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    try {
      assertStorableText("name", plant.name);
      assertStorableText("tag", plant.tag);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.batcher.create(plant);
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
