import type { NewPlant } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { plantFromRow, type PlantRow } from "../plant-row.js";
import type { CreateDecision, DeleteDecision, PageQuery, PlantRepository, StoredPlant } from "../storage.js";
import type { GroupCommit } from "./group-commit.js";

const COLUMNS = "SELECT id, name, tag FROM plants";

/**
 * Plants in SQLite: writes go through the group commit; reads use this thread's own connection,
 * which sees every committed (and, with synchronous=FULL, synced) transaction of the writer.
 */
export class SqlitePlantRepository implements PlantRepository {
  private readonly select: Statement<[bigint], PlantRow>;
  private readonly countAll: Statement<[], { n: number }>;
  /** One statement per shape of page, so that each uses its index: [after?][tag?]. */
  private readonly pages: {
    first: Statement<[number], PlantRow>;
    after: Statement<[bigint, number], PlantRow>;
    firstTagged: Statement<[string, number], PlantRow>;
    afterTagged: Statement<[string, bigint, number], PlantRow>;
  };

  constructor(
    db: Database,
    private readonly groupCommit: GroupCommit,
  ) {
    // safeIntegers: ids come back as exact bigints, never as doubles.
    const prepare = <P extends unknown[]>(sql: string) => db.prepare<P, PlantRow>(sql).safeIntegers(true);
    this.select = prepare(`${COLUMNS} WHERE id = ?`);
    this.pages = {
      first: prepare(`${COLUMNS} ORDER BY id LIMIT ?`),
      after: prepare(`${COLUMNS} WHERE id > ? ORDER BY id LIMIT ?`),
      firstTagged: prepare(`${COLUMNS} WHERE tag = ? ORDER BY id LIMIT ?`),
      afterTagged: prepare(`${COLUMNS} WHERE tag = ? AND id > ? ORDER BY id LIMIT ?`),
    };
    this.countAll = db.prepare("SELECT count(*) AS n FROM plants");
  }

  create(plant: NewPlant): Promise<CreateDecision> {
    return this.groupCommit.create(plant);
  }

  delete(id: bigint): Promise<DeleteDecision> {
    return this.groupCommit.delete(id);
  }

  async find(id: bigint): Promise<StoredPlant | undefined> {
    const row = this.select.get(id);
    return row === undefined ? undefined : plantFromRow(row);
  }

  async list({ limit, after, tag }: PageQuery): Promise<StoredPlant[]> {
    const rows =
      tag === undefined
        ? after === undefined
          ? this.pages.first.all(limit)
          : this.pages.after.all(after, limit)
        : after === undefined
          ? this.pages.firstTagged.all(tag, limit)
          : this.pages.afterTagged.all(tag, after, limit);
    return rows.map(plantFromRow);
  }

  async count(): Promise<number> {
    return this.countAll.get()!.n;
  }
}
