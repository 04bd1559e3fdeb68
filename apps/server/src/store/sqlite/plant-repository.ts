import type { NewPlant } from "@plantstore/contract";
import { plantFromRow } from "../plant-row.js";
import type {
  CreateDecision,
  DeleteDecision,
  PageQuery,
  PlantFilter,
  PlantRepository,
  ScannedPage,
  StoredPlant,
  UpdateDecision,
  VersionCondition,
} from "../storage.js";
import type { GroupCommit } from "./group-commit.js";
import { unpackPage } from "./plant-pages.js";
import type { Reader } from "./reader.js";

/**
 * Plants in SQLite: writes go through the group commit to the writer thread, which decides each
 * one (a create whose id is taken included) in its transaction; reads go to the reader thread,
 * whose connection sees every committed (and, with synchronous=FULL, synced) transaction.
 */
export class SqlitePlantRepository implements PlantRepository {
  constructor(
    private readonly reader: Reader,
    private readonly groupCommit: GroupCommit,
  ) {}

  create(plant: NewPlant): Promise<CreateDecision> {
    return this.groupCommit.create(plant);
  }

  update(plant: StoredPlant, ifMatch?: VersionCondition): Promise<UpdateDecision> {
    return this.groupCommit.update(plant, ifMatch);
  }

  delete(id: bigint, ifMatch?: VersionCondition): Promise<DeleteDecision> {
    return this.groupCommit.delete(id, ifMatch);
  }

  async find(id: bigint): Promise<StoredPlant | undefined> {
    const row = await this.reader.read("plant", id);
    return row === undefined ? undefined : plantFromRow(row);
  }

  async list(page: PageQuery): Promise<StoredPlant[]> {
    return unpackPage(await this.reader.read("page", page));
  }

  async scan(page: PageQuery & { name: string }, window: number): Promise<ScannedPage> {
    const { page: packed, windowEnd } = await this.reader.read("scan", page, window);
    const plants = unpackPage(packed);
    return windowEnd === undefined ? { plants } : { plants, windowEnd };
  }

  countUpTo(filter: PlantFilter, upTo: number): Promise<number> {
    return this.reader.read("countUpTo", filter, upTo);
  }

  count(): Promise<number> {
    return this.reader.read("plantCount");
  }
}
