import createClient from "openapi-fetch";
import type { components, paths } from "./schema.generated.js";

/** The request body, the 200 body and the error body, exactly as the committed document describes them. */
export type NewPlant = components["schemas"]["NewPlant"];
export type Plant = components["schemas"]["Plant"];
export type ApiError = components["schemas"]["Error"];

/** An openapi-fetch client typed only by the types generated from the committed document. */
export function createPlantStoreClient(baseUrl: string, token: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}

export type CreatePlantResult = { ok: true; plant: Plant } | { ok: false; status: number; error: ApiError };

/** `POST /plants` with a bearer token: the plant the store answers, or its Error body with the HTTP status. */
export async function createPlant(baseUrl: string, token: string, plant: NewPlant): Promise<CreatePlantResult> {
  const { data, error, response } = await createPlantStoreClient(baseUrl, token).POST("/plants", { body: plant });
  if (error !== undefined) return { ok: false, status: response.status, error };
  return { ok: true, plant: data };
}
