import { describe, expect, it } from "vitest";
import { clientFor, failureOf, useTestServer, withProxy as withProxyTo } from "./test-support/harness.js";
import type { FlakyProxy, ProxyFault } from "./testing.js";

const context = useTestServer();
const client = () => clientFor(context.server.url);
const withProxy = <T>(faults: ProxyFault[], run: (url: string, proxy: FlakyProxy) => Promise<T>) =>
  withProxyTo(context.server.url, faults, run);

let nextId = 70_000;
const freshId = () => BigInt(nextId++);
const TWO_53 = 2n ** 53n;

describe("readPlant and updatePlant", () => {
  it("reads a plant with its ETag, edits it with that ETag, and answers the new plant and ETag", async () => {
    const id = TWO_53 + freshId();
    await client().createPlant({ id, name: "Fern", tag: "indoor" });
    const read = await client().readPlant(id);
    expect(read.plant).toEqual({ id, name: "Fern", tag: "indoor" });
    expect(read.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const updated = await client().updatePlant(id, { name: "Boston fern" }, { ifMatch: read.etag });
    expect(updated).toEqual({
      plant: { id, name: "Boston fern" },
      etag: expect.any(String),
      outcome: "updated",
      attempts: 1,
    });
    expect(typeof updated.plant.id).toBe("bigint");
    expect(updated.etag).not.toBe(read.etag);
    expect(await client().readPlant(id)).toEqual({ plant: updated.plant, etag: updated.etag });
  });

  it("throws a precondition failure, changing nothing, when someone else edited the plant since it was read", async () => {
    const id = freshId();
    await client().createPlant({ id, name: "Palm" });
    const mine = await client().readPlant(id);
    await client().updatePlant(id, { name: "Someone else's palm" });

    const error = await failureOf(client().updatePlant(id, { name: "My palm" }, { ifMatch: mine.etag }));
    expect(error).toMatchObject({ kind: "http", status: 412, codeName: "PRECONDITION_FAILED", attempts: 1 });
    expect(error.isPreconditionFailed()).toBe(true);
    expect(error.isNotFound()).toBe(false);
    const deleteError = await failureOf(client().deletePlant(id, { ifMatch: mine.etag }));
    expect(deleteError.isPreconditionFailed()).toBe(true);
    expect((await client().getPlant(id)).name).toBe("Someone else's palm");

    // Read again, decide again: the fresh ETag works, for an edit and for a delete.
    const again = await client().readPlant(id);
    const edited = await client().updatePlant(id, { name: "My palm" }, { ifMatch: again.etag });
    expect(await client().deletePlant(id, { ifMatch: edited.etag })).toEqual({ outcome: "deleted", attempts: 1 });
  });

  it("throws not-found for an id no plant has (a PUT never creates)", async () => {
    const error = await failureOf(client().updatePlant(freshId(), { name: "Ghost" }));
    expect(error).toMatchObject({ status: 404, codeName: "PLANT_NOT_FOUND", attempts: 1 });
    expect(error.isNotFound()).toBe(true);
  });

  it("retries an edit whose answer was lost; with If-Match, the retry's 412 for its own edit is a success", async () => {
    const id = freshId();
    await client().createPlant({ id, name: "Ivy" });
    const { etag } = await client().readPlant(id);
    // The first attempt edits the plant and its answer is lost: the retry's If-Match no longer holds.
    await withProxy([{ kind: "lose-answer" }], async (url) => {
      const result = await clientFor(url).updatePlant(id, { name: "Ivy", tag: "climber" }, { ifMatch: etag });
      expect(result).toMatchObject({ plant: { id, name: "Ivy", tag: "climber" }, outcome: "unknown", attempts: 2 });
    });
    // Without a condition the retry is a plain repeat: 200.
    await withProxy([{ kind: "lose-answer" }], async (url) => {
      const result = await clientFor(url).updatePlant(id, { name: "Ivy 2" });
      expect(result).toMatchObject({ plant: { id, name: "Ivy 2" }, outcome: "updated", attempts: 2 });
    });
  });

  it("refuses an edit whose If-Match failed after a lost answer when the plant is not what it asked for", async () => {
    const id = freshId();
    await client().createPlant({ id, name: "Sage" });
    const { etag } = await client().readPlant(id);
    await client().updatePlant(id, { name: "Changed meanwhile" });
    await withProxy([{ kind: "lose-answer" }], async (url) => {
      const error = await failureOf(clientFor(url).updatePlant(id, { name: "Mine" }, { ifMatch: etag }));
      expect(error.isPreconditionFailed()).toBe(true);
    });
    expect((await client().getPlant(id)).name).toBe("Changed meanwhile");
  });

  it("a conditional delete whose answer was lost and whose retry finds the plant gone succeeds with outcome unknown", async () => {
    const id = freshId();
    await client().createPlant({ id, name: "Basil" });
    const { etag } = await client().readPlant(id);
    await withProxy([{ kind: "lose-answer" }], async (url) => {
      expect(await clientFor(url).deletePlant(id, { ifMatch: etag })).toEqual({ outcome: "unknown", attempts: 2 });
    });
  });
});
