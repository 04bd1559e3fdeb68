import type { NewPlant } from "@plantstore/contract";
import type { Database, Statement } from "better-sqlite3";
import { StorageUnavailableError, type CreateOutcome, type PlantRepository, type StoredPlant } from "../storage.js";
import { mapSqliteError } from "./sqlite-errors.js";

interface PendingCreate {
  plant: NewPlant;
  resolve: (outcome: CreateOutcome) => void;
  reject: (error: Error) => void;
}

interface PlantRow {
  name: string;
  tag: string | null;
}

function stored(id: bigint, row: PlantRow): StoredPlant {
  return row.tag === null ? { id, name: row.name } : { id, name: row.name, tag: row.tag };
}

/**
 * Plants in SQLite with group commit. Creates that arrive while the event loop is busy are queued
 * and written together in one transaction with one fsync (WAL, synchronous=FULL), right after
 * the current I/O phase; each promise resolves only once its transaction is committed to disk.
 * A row that fails is answered alone; its batch-mates still commit.
 */
export class SqlitePlantRepository implements PlantRepository {
  private pending: PendingCreate[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly insert: Statement<[bigint, string, string | null]>;
  private readonly select: Statement<[bigint], PlantRow>;
  private readonly countAll: Statement<[], { n: number }>;

  constructor(private readonly db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
    this.select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
    this.countAll = db.prepare("SELECT count(*) AS n FROM plants");
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.closed) return Promise.reject(new StorageUnavailableError("storage is closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ plant, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  async find(id: bigint): Promise<StoredPlant | undefined> {
    const row = this.select.get(id);
    return row === undefined ? undefined : stored(id, row);
  }

  async count(): Promise<number> {
    return this.countAll.get()!.n;
  }

  /** Commits whatever is queued; called by close() so that nothing acknowledged is left behind. */
  readonly flush = (): void => {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const outcomes: Array<CreateOutcome | Error> = [];
    try {
      this.begin.run();
      for (const { plant } of batch) outcomes.push(this.createOne(plant));
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      const failure = mapSqliteError(error);
      for (const item of batch) item.reject(failure);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome instanceof Error) item.reject(outcome);
      else item.resolve(outcome);
    });
  };

  /** One create inside the open transaction; a failure is returned, not thrown, to spare the batch. */
  private createOne(plant: NewPlant): CreateOutcome | Error {
    try {
      const tag = plant.tag ?? null;
      if (this.insert.run(plant.id, plant.name, tag).changes === 1) {
        return { kind: "created", plant: stored(plant.id, { name: plant.name, tag }) };
      }
      const existing = stored(plant.id, this.select.get(plant.id)!);
      return existing.name === plant.name && existing.tag === plant.tag
        ? { kind: "replayed", plant: existing }
        : { kind: "conflict", existing };
    } catch (error) {
      return mapSqliteError(error);
    }
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}
