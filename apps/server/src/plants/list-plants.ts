import type { PageQuery, PlantFilter, PlantRepository, StoredPlant } from "../store/storage.js";

/** A page, and the cursor of the next one when more plants may follow. */
export interface Page {
  plants: StoredPlant[];
  nextAfter?: bigint;
}

/**
 * A name prefix matched by at most this many plants (of the tag, if any) is read through its index
 * range, whole, and sorted by id: reading 5,000 index entries costs about as much as a page of a
 * broad prefix read in id order (measured in docs/api.md).
 */
export const NAME_RANGE_READ_MAX = 5_000;
/**
 * A broader prefix is read in id order, at most this many plants per page: a page may then hold
 * fewer plants than its limit (none, even) while more follow, and its next page starts after the
 * last plant read. So that no page reads the whole store to find a few plants far apart.
 */
export const NAME_SCAN_WINDOW = 10_000;

/**
 * The list-plants use case: one page in id order (ascending or descending), keyset-paginated. One
 * plant more than the page holds is read to know, without counting, whether another page follows.
 *
 * A name prefix and id order are two orders, and no one index serves both: a prefix is a range of
 * the name index, in name order. So a page of a name prefix costs at most about the same however
 * large the store is: a prefix of few plants (counted, up to NAME_RANGE_READ_MAX) is read whole
 * from its range and sorted by id; a broader one, in id order through at most NAME_SCAN_WINDOW
 * plants, where the page ends early when its matches are further apart.
 */
export async function listPlants(plants: PlantRepository, query: PageQuery): Promise<Page> {
  const { name } = query;
  if (name !== undefined && (await plants.countUpTo(query, NAME_RANGE_READ_MAX + 1)) > NAME_RANGE_READ_MAX) {
    const scanned = await plants.scan({ ...query, name }, NAME_SCAN_WINDOW);
    if (scanned.plants.length > query.limit) return fullPage(scanned.plants, query.limit);
    return scanned.windowEnd === undefined
      ? { plants: scanned.plants }
      : { plants: scanned.plants, nextAfter: scanned.windowEnd };
  }
  const found = await plants.list({ ...query, limit: query.limit + 1 });
  return found.length > query.limit ? fullPage(found, query.limit) : { plants: found };
}

function fullPage(found: StoredPlant[], limit: number): Page {
  const page = found.slice(0, limit);
  return { plants: page, nextAfter: page[page.length - 1]!.id };
}

/** The plants that match the filter, counted up to `max` + 1: `max` + 1 means "more than max". */
export function countPlants(plants: PlantRepository, filter: PlantFilter, max: number): Promise<number> {
  return plants.countUpTo(filter, max + 1);
}
