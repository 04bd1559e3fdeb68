import pg from "pg";
import { describeWith } from "@plantstore/vitest-config/optional";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OUTCOME_HEADER } from "@plantstore/contract";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { TOKEN, spawnServer, stringify, type ServerProcess } from "../src/test-support/test-server.js";

/**
 * Two server processes (`node dist/main.js`, as users run them) on one PostgreSQL schema. Requests
 * for overlapping ids are split across both, all at once: the database alone decides, so every id
 * is created exactly once, identical attempts are replays, and different bodies are 409s.
 */
const target = await postgresTestTarget();

const IDS = 50;
const ATTEMPTS_PER_ID = 4;

interface Attempt {
  id: bigint;
  name: string;
  server: number;
}

interface Answer extends Attempt {
  status: number;
  outcome: string | null;
  body: { name?: string; tag?: string; error?: number; message?: string };
}

function attempts(): Attempt[] {
  const list: Attempt[] = [];
  for (let k = 0; k < IDS; k++) {
    // Ids spread over the whole int64 range, including both ends and beyond 2^53.
    const id = k === 0 ? -(2n ** 63n) : k === 1 ? 2n ** 63n - 1n : 2n ** 53n + BigInt(k) * 7_919n;
    for (let j = 0; j < ATTEMPTS_PER_ID; j++) {
      // Three identical attempts and one with a different name, so either may win the race.
      list.push({ id, name: j === ATTEMPTS_PER_ID - 1 ? `other ${id}` : `plant ${id}`, server: 0 });
    }
  }
  // A fixed shuffle, then alternate servers: every id is attempted on both.
  for (let i = list.length - 1; i > 0; i--) {
    const j = (i * 7_877) % (i + 1);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list.map((attempt, i) => ({ ...attempt, server: i % 2 }));
}

describeWith(target, "two server processes on one PostgreSQL", (url) => {
  let schema: TestSchema;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    schema = await createTestSchema(url);
    // Both start at once: the advisory lock lets exactly one of them migrate.
    servers.push(...(await Promise.all([0, 1].map(() => spawnServer({ DATABASE_URL: schema.url })))));
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill("SIGTERM");
    await Promise.all(servers.map((server) => server.exited));
    await schema?.drop();
  });

  it(`${IDS * ATTEMPTS_PER_ID} concurrent creates with overlapping ids: each id created exactly once`, async () => {
    const answers: Answer[] = await Promise.all(
      attempts().map(async (attempt) => {
        const response = await fetch(`${servers[attempt.server]!.url}/plants`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: stringify({ id: attempt.id, name: attempt.name }),
        });
        return {
          ...attempt,
          status: response.status,
          outcome: response.headers.get(OUTCOME_HEADER),
          body: (await response.json()) as Answer["body"],
        };
      }),
    );

    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    const rows = await client.query<{ id: string; name: string; tag: string | null }>(
      "SELECT id::text AS id, name, tag FROM plants",
    );
    await client.end();
    const stored = new Map(rows.rows.map((row) => [BigInt(row.id), row]));
    expect(stored.size).toBe(IDS);

    for (const server of [0, 1]) expect(answers.filter((a) => a.server === server).length).toBe(100);
    const byId = new Map<bigint, Answer[]>();
    for (const answer of answers) byId.set(answer.id, [...(byId.get(answer.id) ?? []), answer]);
    for (const [id, answersForId] of byId) {
      const row = stored.get(id);
      expect(row, `id ${id} stored`).toBeDefined();
      expect(row!.tag).toBeNull();
      expect(
        answersForId.filter((a) => a.outcome === "created"),
        `id ${id} created once`,
      ).toHaveLength(1);
      for (const answer of answersForId) {
        if (answer.name === row!.name) {
          // Same body as the stored plant: created (once) or replayed, same body either way.
          expect(answer.status).toBe(200);
          expect(answer.body).toEqual({ name: row!.name });
          expect(["created", "replayed"]).toContain(answer.outcome);
        } else {
          expect(answer.status).toBe(409);
          expect(answer.body).toMatchObject({ error: 40901 });
          expect(answer.body.message).toContain(String(id));
        }
      }
    }
    // The mix is what the race makes it, but every kind must be there.
    const statuses = new Set(answers.map((a) => a.outcome ?? String(a.status)));
    expect(statuses).toEqual(new Set(["created", "replayed", "409"]));
  });

  it("of 10 concurrent PUTs with the same If-Match, split over both instances, exactly one wins", async () => {
    const call = (
      server: ServerProcess,
      method: string,
      path: string,
      headers: Record<string, string>,
      body?: string,
    ) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
        body,
      });
    for (let round = 0; round < 5; round++) {
      const id = 2n ** 53n + 7n + BigInt(round) * 1_000_033n;
      expect((await call(servers[0]!, "POST", "/plants", {}, stringify({ id, name: "contested" }))).status).toBe(200);
      const etag = (await call(servers[1]!, "GET", `/plants/${id}`, {})).headers.get("etag")!;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          call(servers[n % 2]!, "PUT", `/plants/${id}`, { "if-match": etag }, stringify({ name: `writer ${n}` })),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, ...Array<number>(9).fill(412)]);
      const winner = await answers.find((answer) => answer.status === 200)!.text();
      for (const server of servers) expect(await (await call(server, "GET", `/plants/${id}`, {})).text()).toBe(winner);
    }
  });

  it("read-your-writes across instances: a write answered by one is seen at once by the other", async () => {
    const call = (server: ServerProcess, method: string, path: string, body?: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
    for (let round = 0; round < 50; round++) {
      const [writer, reader] = round % 2 === 0 ? [servers[0]!, servers[1]!] : [servers[1]!, servers[0]!];
      const id = 2n ** 53n + 1n + BigInt(round) * 1_000_003n;
      expect((await call(writer, "POST", "/plants", stringify({ id, name: `rw ${round}` }))).status).toBe(200);
      const read = await call(reader, "GET", `/plants/${id}`);
      expect(read.status).toBe(200);
      expect(await read.text()).toBe(`{"id":${id},"name":"rw ${round}"}`);
      const page = await call(reader, "GET", `/plants?limit=1&after=${id - 1n}`);
      expect(await page.text()).toBe(`[{"id":${id},"name":"rw ${round}"}]`);
      expect((await call(reader, "DELETE", `/plants/${id}`)).status).toBe(204);
      expect((await call(writer, "GET", `/plants/${id}`)).status).toBe(404);
      expect((await call(writer, "DELETE", `/plants/${id}`)).status).toBe(404);
    }
  });
});
