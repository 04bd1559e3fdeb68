import type { PlantPage, StoredPlant } from "@plantstore/client";
import type { InfiniteData } from "@tanstack/react-query";

/** The order of the table: the store's, by id, either way (both keyset-paged by the server). */
export type Order = "asc" | "desc";

/** What the table shows: the plants whose name starts with `name` (any case) and tagged `tag` (when not empty). */
export interface View {
  name: string;
  tag: string;
  order: Order;
}

/** The pages of the table read so far (TanStack Query's infinite query data). */
export type Pages = InfiniteData<PlantPage, bigint | undefined>;

export const byId =
  (order: Order) =>
  (a: StoredPlant, b: StoredPlant): number =>
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (order === "asc" ? 1 : -1);

/** ASCII letters in lower case, every other character as it is: how the server compares names. */
const foldAscii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** Whether the view shows `plant`: the server's rule (an exact tag; a name prefix, ASCII letters in either case). */
export function inView(view: View, plant: StoredPlant): boolean {
  if (view.tag !== "" && plant.tag !== view.tag) return false;
  return foldAscii(plant.name).startsWith(foldAscii(view.name));
}

/**
 * Whether `id` falls among the pages read so far: always once the last page is read; before, only
 * up to the cursor of the next page (a plant beyond it appears when that page is loaded).
 */
function withinLoaded(data: Pages, id: bigint, order: Order): boolean {
  const next = data.pages.at(-1)?.next;
  if (next === undefined) return true;
  return order === "asc" ? id < next : id > next;
}

export function withoutPlant(data: Pages, id: bigint): Pages {
  return { ...data, pages: data.pages.map((page) => ({ ...page, plants: page.plants.filter((p) => p.id !== id) })) };
}

/**
 * The pages with `plant` as it now is: replaced where it was, added when it belongs to the view and
 * its place in id order has been read, taken out when the view no longer shows it.
 */
export function withPlant(data: Pages, plant: StoredPlant, view: View): Pages {
  const present = data.pages.some((page) => page.plants.some((p) => p.id === plant.id));
  if (!inView(view, plant)) return present ? withoutPlant(data, plant.id) : data;
  if (present) {
    return {
      ...data,
      pages: data.pages.map((page) => ({ ...page, plants: page.plants.map((p) => (p.id === plant.id ? plant : p)) })),
    };
  }
  if (data.pages.length === 0 || !withinLoaded(data, plant.id, view.order)) return data;
  // Rows are sorted when shown (rowsOf), so the plant may join any page: the last one.
  const pages = [...data.pages];
  const last = pages.length - 1;
  pages[last] = { ...pages[last]!, plants: [...pages[last]!.plants, plant] };
  return { ...data, pages };
}

/** The table's rows: every plant read, once each, in the view's order. */
export function rowsOf(data: { pages: readonly PlantPage[] } | undefined, order: Order): StoredPlant[] {
  const plants = new Map<bigint, StoredPlant>();
  for (const page of data?.pages ?? []) for (const plant of page.plants) plants.set(plant.id, plant);
  return [...plants.values()].sort(byId(order));
}
