import type pg from "pg";
import type { NewPlant } from "@plantstore/contract";
import { countSql, pageSql, scanSql, type Dialect } from "../plant-queries.js";
import { plantFromRow, type PlantRow } from "../plant-row.js";
import type {
  CreateDecision,
  DeleteDecision,
  PageQuery,
  PlantFilter,
  PlantRepository,
  ScannedPage,
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
 * PostgreSQL's dialect of plant-queries.ts: numbered parameters (ids as exact decimal text cast to
 * bigint), the name key as its indexes have it. Each shape of statement is planned with its
 * parameters (node-postgres's unnamed statements), so the planner picks the index for each.
 */
export class PostgresDialect implements Dialect {
  readonly nameKey = 'lower(name COLLATE "C")';
  readonly params: unknown[] = [];

  param(value: unknown, type?: "bigint"): string {
    this.params.push(typeof value === "bigint" ? value.toString() : value);
    return `$${this.params.length}${type === "bigint" ? "::bigint" : ""}`;
  }
}

/** A row of a scanned page (scanSql): whether the plant matched, and its place in the window. */
interface ScannedRow extends PlantRow {
  matched: boolean;
  n: bigint;
}

/** The statement `build` writes, with its parameters. */
function plantQuery(build: (dialect: Dialect) => string): { text: string; values: unknown[] } {
  const dialect = new PostgresDialect();
  const text = build(dialect);
  return { text, values: dialect.params };
}

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

  list(page: PageQuery): Promise<StoredPlant[]> {
    const { text, values } = plantQuery((dialect) => pageSql(dialect, page));
    return this.db.run("list plants", async (pool) =>
      (await pool.query<PlantRow>(text, values)).rows.map(plantFromRow),
    );
  }

  scan(page: PageQuery & { name: string }, window: number): Promise<ScannedPage> {
    const { text, values } = plantQuery((dialect) => scanSql(dialect, page, window));
    return this.db.run("list plants", async (pool) => {
      const rows = (await pool.query<ScannedRow>(text, values)).rows;
      const end = rows.find((row) => row.n === BigInt(window));
      const plants = rows.filter((row) => row.matched).map(plantFromRow);
      return end === undefined ? { plants } : { plants, windowEnd: end.id };
    });
  }

  countUpTo(filter: PlantFilter, upTo: number): Promise<number> {
    const { text, values } = plantQuery((dialect) => countSql(dialect, filter, upTo));
    return this.db.run("count plants", async (pool) => {
      const result = await pool.query<{ n: bigint }>(text, values);
      return Number(result.rows[0]?.n ?? 0n);
    });
  }

  count(): Promise<number> {
    return this.db.run("count plants", async (pool) => {
      const result = await pool.query<{ count: bigint }>("SELECT count(*) AS count FROM plants");
      return Number(result.rows[0]?.count ?? 0n);
    });
  }
}
