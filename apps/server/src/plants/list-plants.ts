import type { PageQuery, PlantRepository, StoredPlant } from "../store/storage.js";

/** A page, and the cursor of the next one when more plants follow (the last id of this page). */
export interface Page {
  plants: StoredPlant[];
  nextAfter?: bigint;
}

/**
 * The list-plants use case: one page in id order, keyset-paginated. One plant more than the page
 * holds is read to know, without counting, whether another page follows.
 */
export async function listPlants(plants: PlantRepository, query: PageQuery): Promise<Page> {
  const found = await plants.list({ ...query, limit: query.limit + 1 });
  if (found.length <= query.limit) return { plants: found };
  const page = found.slice(0, query.limit);
  return { plants: page, nextAfter: page[page.length - 1]!.id };
}
