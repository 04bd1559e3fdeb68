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
export function openDurablePlants(path: string): (plant: PlantRecord) => CreateOutcome {
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
  return db.transaction((plant: PlantRecord): CreateOutcome => {
    const tag = plant.tag ?? null;
    const existing = select.get(plant.id);
    if (existing === undefined) {
      insert.run(plant.id, plant.name, tag);
      return "created";
    }
    return existing.name === plant.name && existing.tag === tag ? "replayed" : "conflict";
  });
}
