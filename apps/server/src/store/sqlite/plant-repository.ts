import type { NewPlant } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { decideExisting, plantFromRow, type PlantRow } from "../plant-row.js";
import {
  StorageUnavailableError,
  type CreateDecision,
  type DeleteDecision,
  type PageQuery,
  type PlantRepository,
  type StoredPlant,
  type UpdateDecision,
  type VersionCondition,
} from "../storage.js";
import { mapSqliteError } from "./errors.js";
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
    private readonly db: Database,
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

  /**
   * A create whose id is already stored is decided from a read, at read speed: what this connection
   * sees is committed and synced (WAL makes a commit visible only after its fsync), so a replay or a
   * conflict answered from it is as durable as the stored plant. Anything else, a create still in an
   * uncommitted batch included, goes through the group commit, where the writer decides.
   */
  create(plant: NewPlant): Promise<CreateDecision> {
    if (!this.db.open) return Promise.reject(new StorageUnavailableError("storage is closed"));
    let stored: PlantRow | undefined;
    try {
      stored = this.select.get(plant.id);
    } catch (error) {
      return Promise.reject(mapSqliteError(error));
    }
    if (stored !== undefined) return Promise.resolve(decideExisting(plant, plantFromRow(stored)));
    return this.groupCommit.create(plant);
  }

  update(plant: StoredPlant, ifMatch?: VersionCondition): Promise<UpdateDecision> {
    return this.groupCommit.update(plant, ifMatch);
  }

  delete(id: bigint, ifMatch?: VersionCondition): Promise<DeleteDecision> {
    return this.groupCommit.delete(id, ifMatch);
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
