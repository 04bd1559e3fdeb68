import { describe, expect, it } from "vitest";
import { createPlant, createPlantStoreClient } from "./create-plant.js";
import { realServerForTests, TOKEN } from "./test-support/real-server.js";

// Codes from the error catalogue in the committed document's description.
const VALIDATION_FAILED = 40002;
const INVALID_CREDENTIAL = 40102;
const ID_CONFLICT = 40901;

const server = realServerForTests();

describe("the generated client against the real server", () => {
  it("creates a plant: 200 with exactly {name, tag}", async () => {
    const result = await createPlant(server.url, TOKEN, { id: 1, name: "Monstera deliciosa", tag: "indoor" });
    expect(result).toEqual({ ok: true, plant: { name: "Monstera deliciosa", tag: "indoor" } });
  });

  it("creates a plant without a tag: 200 with exactly {name}", async () => {
    const result = await createPlant(server.url, TOKEN, { id: 2, name: "Fern" });
    expect(result).toEqual({ ok: true, plant: { name: "Fern" } });
  });

  it("replays an identical create (200) and refuses a different one with the same id (409 Error)", async () => {
    const plant = { id: 3, name: "Cactus", tag: "desert" };
    expect(await createPlant(server.url, TOKEN, plant)).toEqual({ ok: true, plant: { name: "Cactus", tag: "desert" } });
    expect(await createPlant(server.url, TOKEN, plant)).toEqual({ ok: true, plant: { name: "Cactus", tag: "desert" } });
    const conflict = await createPlant(server.url, TOKEN, { id: 3, name: "Aloe" });
    expect(conflict).toEqual({ ok: false, status: 409, error: { error: ID_CONFLICT, message: expect.any(String) } });
  });

  it("answers a wrong token with 401 and the Error schema", async () => {
    const result = await createPlant(server.url, "not-a-token", { id: 4, name: "Fern" });
    expect(result).toEqual({
      ok: false,
      status: 401,
      error: { error: INVALID_CREDENTIAL, message: expect.any(String) },
    });
  });

  it("answers a body the types allow but the rules refuse (empty name) with 400 naming the field", async () => {
    const result = await createPlant(server.url, TOKEN, { id: 5, name: "" });
    expect(result).toEqual({
      ok: false,
      status: 400,
      error: { error: VALIDATION_FAILED, message: expect.stringContaining("name") },
    });
  });

  it("answers a wrong field type (sent past the types) with 400 naming the field", async () => {
    const client = createPlantStoreClient(server.url, TOKEN);
    // @ts-expect-error a consumer without the types could send this; the server must refuse it
    const { error, response } = await client.POST("/plants", { body: { id: "6", name: "Fern" } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: VALIDATION_FAILED, message: expect.stringContaining("id") });
  });

  it("answers an unknown field with 400 naming it", async () => {
    const client = createPlantStoreClient(server.url, TOKEN);
    const { error, response } = await client.POST("/plants", { body: { id: 7, name: "Fern", color: "green" } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: VALIDATION_FAILED, message: expect.stringContaining("color") });
  });

  it("kept nothing from the refused requests", async () => {
    // The refused ids stay free: creating them now succeeds (the store kept nothing from a 400/401).
    for (const id of [4, 5, 6, 7]) {
      expect(await createPlant(server.url, TOKEN, { id, name: "Fresh" })).toEqual({
        ok: true,
        plant: { name: "Fresh" },
      });
    }
  });
});
