import { ErrorCode } from "@plantstore/contract";
import { describe, expect, it } from "vitest";
import { clientFor, failureOf, useTestServer, withProxy } from "./test-support/harness.js";
import type { PlantChange, PlantChangeEvent } from "./watch.js";

const context = useTestServer();
const client = () => clientFor(context.server.url);
const TWO_53 = 2n ** 53n;
let nextId = TWO_53 + 70_001n;
const freshId = () => (nextId += 1_000n);

/** The first `count` changes of a watch, then stops it. */
async function take(changes: AsyncIterable<PlantChange>, count: number, stop: AbortController): Promise<PlantChange[]> {
  const taken: PlantChange[] = [];
  for await (const change of changes) {
    taken.push(change);
    if (taken.length === count) break;
  }
  stop.abort();
  return taken;
}

describe("watchPlants", () => {
  it("yields each committed change in commit order with its plant (ids exact), version and cursor, and resumes after a cursor", async () => {
    const id = freshId();
    const stop = new AbortController();
    const states: string[] = [];
    const after = await lastCursor();
    await client().createPlant({ id, name: "Fern" });
    const edited = await client().updatePlant(id, { name: "Boston fern", tag: "shade" });
    await client().deletePlant(id);
    const watch = client().watchPlants({ after, signal: stop.signal, onState: (state) => states.push(state) });
    const changes = (await take(watch, 3, stop)) as PlantChangeEvent[];
    expect(changes.map((change) => [change.kind, change.plant.id])).toEqual([
      ["created", id],
      ["updated", id],
      ["deleted", id],
    ]);
    const [created, updated, deleted] = changes;
    expect(created!.plant).toEqual({ id, name: "Fern" });
    expect(typeof created!.plant.id).toBe("bigint");
    expect(updated!.plant).toEqual({ id, name: "Boston fern", tag: "shade" });
    expect(`"${updated!.version}"`).toBe(edited.etag);
    expect(deleted!.version).toBe(updated!.version);
    expect(BigInt(updated!.cursor)).toBe(BigInt(created!.cursor) + 1n);
    expect(states.slice(0, 2)).toEqual(["connecting", "live"]);

    // From the first change's cursor: exactly the two after it.
    const again = new AbortController();
    const resumed = await take(client().watchPlants({ after: created!.cursor, signal: again.signal }), 2, again);
    expect(resumed.map((change) => change.cursor)).toEqual([updated!.cursor, deleted!.cursor]);
  });

  it("reconnects by itself after its connection fails, from its cursor", async () => {
    const id = freshId();
    await client().createPlant({ id, name: "Before" });
    const cursor = await lastCursor();
    await client().createPlant({ id: id + 1n, name: "After" });
    await withProxy(context.server.url, [{ kind: "drop" }, { kind: "status-503", retryAfter: "0" }], async (url) => {
      const stop = new AbortController();
      const states: string[] = [];
      const changes = await take(
        clientFor(url).watchPlants({ after: cursor, signal: stop.signal, onState: (state) => states.push(state) }),
        1,
        stop,
      );
      expect(changes).toMatchObject([{ kind: "created", plant: { id: id + 1n, name: "After" } }]);
      expect(states).toEqual(["connecting", "reconnecting", "reconnecting", "live"]);
    });
  });

  it("says reset for a cursor the server does not have, then goes on from the newest", async () => {
    const stop = new AbortController();
    const [reset] = await take(client().watchPlants({ after: 2n ** 62n, signal: stop.signal }), 1, stop);
    expect(reset).toMatchObject({ kind: "reset", cursor: await lastCursor() });
  });

  it("ends with the server's refusal when reconnecting cannot help: a bad cursor, a bad token", async () => {
    const badCursor = await failureOf(client().watchPlants({ after: "-1" }).next());
    expect(badCursor).toMatchObject({ status: 400, code: ErrorCode.INVALID_PARAMETER });
    const badToken = await failureOf(
      clientFor(context.server.url, { token: "x".repeat(40) })
        .watchPlants()
        .next(),
    );
    expect(badToken).toMatchObject({ status: 401 });
  });

  it("ends quietly when its signal aborts, even while waiting for a change", async () => {
    const stop = new AbortController();
    const next = client().watchPlants({ signal: stop.signal }).next();
    setTimeout(() => stop.abort(), 100);
    await expect(next).resolves.toEqual({ done: true, value: undefined });
  });
});

/** The newest cursor: what a watch from now on starts at (its first block's id). */
async function lastCursor(): Promise<string> {
  const response = await fetch(`${context.server.url}/plants/changes`, {
    headers: { authorization: `Bearer ${"client-test-token-0123456789abcdef"}` },
  });
  const reader = response.body!.getReader();
  let text = "";
  while (!/\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return /id: (\d+)/.exec(text)![1]!;
}
