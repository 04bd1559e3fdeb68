import Database from "better-sqlite3";

/** What a create came to: stored now, an identical replay, or a different plant under that id. */
export type CreateOutcome = "created" | "replayed" | "conflict";

export interface PlantRecord {
  id: number | bigint;
  name: string;
  tag?: string | undefined;
}

/**
 * The durable store the naive and fastify-durable baselines share, so that they differ only in their
 * HTTP stack: better-sqlite3, WAL, synchronous=FULL (the WAL is fsynced on every commit), one
 * transaction per request, the 200 sent only after the commit returned.
 */
export interface DurablePlants {
  create(plant: PlantRecord): CreateOutcome;
  find(id: number): PlantRecord | undefined;
  /** Up to `limit` plants with an id above `after`, in id order (keyset pagination). */
  page(limit: number, after: number | undefined): PlantRecord[];
  /** Whether the plant existed and now has this name and tag (one transaction, fsynced like a create). */
  update(plant: PlantRecord): boolean;
  /** Whether a plant was deleted (one transaction, fsynced like a create). */
  remove(id: number): boolean;
}

export function openDurablePlants(path: string): DurablePlants {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT)");
  const select = db.prepare<[bigint | number], { name: string; tag: string | null }>(
    "SELECT name, tag FROM plants WHERE id = ?",
  );
  const insert = db.prepare<[bigint | number, string, string | null]>(
    "INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)",
  );
  const create = db.transaction((plant: PlantRecord): CreateOutcome => {
    const tag = plant.tag ?? null;
    const existing = select.get(plant.id);
    if (existing === undefined) {
      insert.run(plant.id, plant.name, tag);
      return "created";
    }
    return existing.name === plant.name && existing.tag === tag ? "replayed" : "conflict";
  });
  type Row = { id: number; name: string; tag: string | null };
  const record = ({ id, name, tag }: Row): PlantRecord => (tag === null ? { id, name } : { id, name, tag });
  const one = db.prepare<[number], Row>("SELECT id, name, tag FROM plants WHERE id = ?");
  const first = db.prepare<[number], Row>("SELECT id, name, tag FROM plants ORDER BY id LIMIT ?");
  const after = db.prepare<[number, number], Row>("SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?");
  const remove = db.prepare<[number]>("DELETE FROM plants WHERE id = ?");
  const change = db.prepare<[string, string | null, bigint | number]>(
    "UPDATE plants SET name = ?, tag = ? WHERE id = ?",
  );
  const update = db.transaction((plant: PlantRecord): boolean => {
    const tag = plant.tag ?? null;
    const existing = select.get(plant.id);
    if (existing === undefined) return false;
    if (existing.name !== plant.name || existing.tag !== tag) change.run(plant.name, tag, plant.id);
    return true;
  });
  return {
    create,
    find: (id) => {
      const row = one.get(id);
      return row === undefined ? undefined : record(row);
    },
    page: (limit, afterId) => (afterId === undefined ? first.all(limit) : after.all(afterId, limit)).map(record),
    update,
    remove: (id) => remove.run(id).changes > 0,
  };
}
