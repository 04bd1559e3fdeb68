import type { components } from "./schema.generated.js";
import type { createPlantStoreClient } from "./create-plant.js";
import { type ApiError } from "./create-plant.js";

/** A stored plant as the committed document describes it (`id` is an int64: a number here, see docs/api.md). */
export type StoredPlant = components["schemas"]["StoredPlant"];

type Client = ReturnType<typeof createPlantStoreClient>;
export type Result<T> = { ok: true; value: T } | { ok: false; status: number; error: ApiError | undefined };

/** `GET /plants/{id}`. */
export async function getPlant(client: Client, id: number): Promise<Result<StoredPlant>> {
  const { data, error, response } = await client.GET("/plants/{id}", { params: { path: { id } } });
  return data === undefined ? { ok: false, status: response.status, error } : { ok: true, value: data };
}

/** `GET /plants` page by page, following each answer's `Link: <…>; rel="next"` until there is none. */
export async function listAllPlants(
  client: Client,
  query: { limit?: number; tag?: string } = {},
): Promise<Result<StoredPlant[]>> {
  const plants: StoredPlant[] = [];
  let after: number | undefined;
  for (;;) {
    const { data, error, response } = await client.GET("/plants", { params: { query: { ...query, after } } });
    if (data === undefined) return { ok: false, status: response.status, error };
    plants.push(...data);
    const next = /<[^>]*[?&]after=(-?\d+)[^>]*>; rel="next"/.exec(response.headers.get("link") ?? "");
    if (next === null) return { ok: true, value: plants };
    after = Number(next[1]);
  }
}

/** `DELETE /plants/{id}`: 204 is success. */
export async function deletePlant(client: Client, id: number): Promise<Result<undefined>> {
  const { error, response } = await client.DELETE("/plants/{id}", { params: { path: { id } } });
  return response.status === 204 ? { ok: true, value: undefined } : { ok: false, status: response.status, error };
}
