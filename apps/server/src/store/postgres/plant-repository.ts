import type pg from "pg";
import type { NewPlant } from "@plantstore/contract";
import { plantFromRow, type PlantRow } from "../plant-row.js";
import type { CreateDecision, PlantRepository, StoredPlant } from "../storage.js";
import type { PostgresDatabase } from "./database.js";
import { GroupCommit } from "./group-commit.js";
import { assertStorableText } from "./storable-text.js";

const FIND_SQL = "SELECT id, name, tag FROM plants WHERE id = $1::bigint";

async function findPlant(pool: pg.Pool, id: bigint): Promise<StoredPlant | undefined> {
  const result = await pool.query<PlantRow>(FIND_SQL, [id.toString()]);
  const row = result.rows[0];
  return row ? plantFromRow(row) : undefined;
}

export class PostgresPlantRepository implements PlantRepository {
  private readonly groupCommit: GroupCommit;

  constructor(
    private readonly db: PostgresDatabase,
    batchSlots: number,
  ) {
    this.groupCommit = new GroupCommit(db, batchSlots);
  }

  create(plant: NewPlant): Promise<CreateDecision> {
    try {
      assertStorableText("name", plant.name);
      assertStorableText("tag", plant.tag);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.groupCommit.create(plant);
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
