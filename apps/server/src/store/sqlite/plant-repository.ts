import type { NewPlant } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { plantFromRow, type PlantRow } from "../plant-row.js";
import type { CreateDecision, PlantRepository, StoredPlant } from "../storage.js";
import type { GroupCommit } from "./group-commit.js";

/** Plants in SQLite: creates go through the group commit; reads use this thread's own connection. */
export class SqlitePlantRepository implements PlantRepository {
  private readonly select: Statement<[bigint], PlantRow>;
  private readonly countAll: Statement<[], { n: number }>;

  constructor(
    db: Database,
    private readonly groupCommit: GroupCommit,
  ) {
    this.select = db.prepare<[bigint], PlantRow>("SELECT id, name, tag FROM plants WHERE id = ?").safeIntegers(true);
    this.countAll = db.prepare("SELECT count(*) AS n FROM plants");
  }

  create(plant: NewPlant): Promise<CreateDecision> {
    return this.groupCommit.create(plant);
  }

  async find(id: bigint): Promise<StoredPlant | undefined> {
    const row = this.select.get(id);
    return row === undefined ? undefined : plantFromRow(row);
  }

  async count(): Promise<number> {
    return this.countAll.get()!.n;
  }
}
