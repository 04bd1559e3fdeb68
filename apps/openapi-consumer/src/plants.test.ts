import { beforeAll, describe, expect, it } from "vitest";
import { createPlant, createPlantStoreClient } from "./create-plant.js";
import { deletePlant, getPlant, listAllPlants } from "./plants.js";
import { realServerForTests, TOKEN } from "./test-support/real-server.js";

// Codes from the error catalogue in the committed document's description.
const PLANT_NOT_FOUND = 40402;
const INVALID_PARAMETER = 40005;
const INSUFFICIENT_SCOPE = 40301;
const READ_ONLY = "consumer-read-only-0123456789abcdef";

const server = realServerForTests([`${READ_ONLY}:plants:read`]);
beforeAll(async () => {
  for (let id = 1; id <= 25; id++) {
    await createPlant(server.url, TOKEN, { id: 1000 + id, name: `Plant ${id}`, ...(id % 2 ? { tag: "odd" } : {}) });
  }
});

describe("every operation of the 3.1 document, through the generated types, against the real server", () => {
  it("GET /plants/{id}: the stored plant with its id; 404 and 400 as Error bodies", async () => {
    const client = createPlantStoreClient(server.url, TOKEN);
    expect(await getPlant(client, 1001)).toEqual({ ok: true, value: { id: 1001, name: "Plant 1", tag: "odd" } });
    expect(await getPlant(client, 1002)).toEqual({ ok: true, value: { id: 1002, name: "Plant 2" } });
    expect(await getPlant(client, 999)).toMatchObject({ ok: false, status: 404, error: { error: PLANT_NOT_FOUND } });
    expect(await getPlant(client, 1.5)).toMatchObject({ ok: false, status: 400, error: { error: INVALID_PARAMETER } });
  });

  it("GET /plants: every plant once, in id order, following the Link header; tag filters", async () => {
    const client = createPlantStoreClient(server.url, TOKEN);
    const all = await listAllPlants(client, { limit: 7 });
    expect(all.ok && all.value.map((plant) => plant.id)).toEqual(Array.from({ length: 25 }, (_, i) => 1001 + i));
    const odd = await listAllPlants(client, { limit: 4, tag: "odd" });
    expect(odd.ok && odd.value.length).toBe(13);
    expect(await listAllPlants(client, { limit: 0 })).toMatchObject({ ok: false, status: 400 });
  });

  it("DELETE /plants/{id}: 204, then the plant is gone (404); a read-only token gets 403", async () => {
    const client = createPlantStoreClient(server.url, TOKEN);
    const readOnly = createPlantStoreClient(server.url, READ_ONLY);
    expect(await deletePlant(readOnly, 1025)).toMatchObject({
      ok: false,
      status: 403,
      error: { error: INSUFFICIENT_SCOPE },
    });
    expect(await deletePlant(client, 1025)).toEqual({ ok: true, value: undefined });
    expect(await getPlant(client, 1025)).toMatchObject({ ok: false, status: 404 });
    expect(await deletePlant(client, 1025)).toMatchObject({
      ok: false,
      status: 404,
      error: { error: PLANT_NOT_FOUND },
    });
  });
});
