import type pg from "pg";
import type { NewPlant } from "@plantstore/contract";
import { plantFromRow, type PlantRow } from "../plant-row.js";
import type {
  CreateDecision,
  DeleteDecision,
  PageQuery,
  PlantRepository,
  StorageOptions,
  StoredPlant,
  UpdateDecision,
  VersionCondition,
} from "../storage.js";
import type { PostgresDatabase } from "./database.js";
import { GroupCommit } from "./group-commit.js";
import { assertStorableText } from "./storable-text.js";

const FIND_SQL = "SELECT id, name, tag FROM plants WHERE id = $1::bigint";

/**
 * One statement per shape of page, so that each is planned for its index: the primary key for id
 * order, (tag, id) for one tag. Parameters: limit, then after and tag when present.
 */
function pageSql(after: boolean, tag: boolean): string {
  const conditions = [...(after ? ["id > $2::bigint"] : []), ...(tag ? [`tag = $${after ? 3 : 2}`] : [])];
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
  return `SELECT id, name, tag FROM plants${where} ORDER BY id LIMIT $1`;
}
const PAGE_SQL = {
  first: pageSql(false, false),
  after: pageSql(true, false),
  firstTagged: pageSql(false, true),
  afterTagged: pageSql(true, true),
};

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
    options: Pick<StorageOptions, "observeBatch" | "onDeliveries" | "onChanges">,
  ) {
    this.groupCommit = new GroupCommit(db, batchSlots, options.observeBatch, options.onDeliveries, options.onChanges);
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

  update(plant: StoredPlant, ifMatch?: VersionCondition): Promise<UpdateDecision> {
    try {
      assertStorableText("name", plant.name);
      assertStorableText("tag", plant.tag);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.groupCommit.update(plant, ifMatch);
  }

  delete(id: bigint, ifMatch?: VersionCondition): Promise<DeleteDecision> {
    return this.groupCommit.delete(id, ifMatch);
  }

  find(id: bigint): Promise<StoredPlant | undefined> {
    return this.db.run("find plant", (pool) => findPlant(pool, id));
  }

  list({ limit, after, tag }: PageQuery): Promise<StoredPlant[]> {
    const sql =
      tag === undefined
        ? after === undefined
          ? PAGE_SQL.first
          : PAGE_SQL.after
        : after === undefined
          ? PAGE_SQL.firstTagged
          : PAGE_SQL.afterTagged;
    const parameters = [limit, ...(after === undefined ? [] : [after.toString()]), ...(tag === undefined ? [] : [tag])];
    return this.db.run("list plants", async (pool) =>
      (await pool.query<PlantRow>(sql, parameters)).rows.map(plantFromRow),
    );
  }

  count(): Promise<number> {
    return this.db.run("count plants", async (pool) => {
      const result = await pool.query<{ count: bigint }>("SELECT count(*) AS count FROM plants");
      return Number(result.rows[0]?.count ?? 0n);
    });
  }
}
