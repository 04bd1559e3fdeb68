import { ErrorCode } from "@plantstore/contract";
import pg from "pg";
import { TOKEN, stringify } from "./test-server.js";

/** One HTTP exchange of the load: what was asked, and what came back (status 0: no answer at all). */
export interface LoadAnswer {
  op: "create" | "delete" | "edit" | "get" | "list";
  id: bigint;
  status: number;
  code?: number;
  retryAfter: string | null;
}

const EXPECTED: Record<LoadAnswer["op"], readonly number[]> = {
  create: [200],
  // Every preloaded id is deleted once: a 404 would mean a delete acted twice or a plant vanished.
  delete: [204],
  // Edits take preloaded ids from the other end, each once: the deletes do not reach them.
  edit: [200],
  get: [200, 404],
  list: [200],
};

/**
 * Test support: clients that create fresh ids, delete preloaded ids (each once), edit others (each
 * once: `PUT /plants/{id}`), read and list,
 * back to back, recording every answer; then checks that every answer is one the contract allows
 * and that storage holds exactly what was acknowledged.
 */
export class MixedLoad {
  readonly answers: LoadAnswer[] = [];
  private running = false;
  private clients: Array<Promise<void>> = [];
  private nextCreate: bigint;
  private nextDelete = 0;
  private nextEdit = 1;
  private turn = 0;

  constructor(
    private readonly baseUrl: string,
    /** Ids stored before the load starts: the deletes' targets. */
    private readonly preloaded: readonly bigint[],
    firstNewId: bigint,
  ) {
    this.nextCreate = firstNewId;
  }

  /** Stores the plants the deletes will remove (before `start`). */
  static async preload(baseUrl: string, ids: readonly bigint[]): Promise<void> {
    for (const id of ids) {
      const response = await post(baseUrl, id);
      if (response.status !== 200) throw new Error(`preloading plant ${id} answered ${response.status}`);
    }
  }

  start(clients: number): void {
    this.running = true;
    this.clients = Array.from({ length: clients }, async () => {
      while (this.running) await this.one();
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  count(predicate: (answer: LoadAnswer) => boolean): number {
    return this.answers.filter(predicate).length;
  }

  /** Every answer is the operation's success or a 503 JSON Error (refused or outcome unknown) with Retry-After. */
  expectAllowedAnswers(): void {
    for (const answer of this.answers) {
      if (EXPECTED[answer.op].includes(answer.status)) continue;
      const allowed =
        answer.status === 503 &&
        (answer.code === ErrorCode.STORAGE_UNAVAILABLE || answer.code === ErrorCode.OUTCOME_UNKNOWN) &&
        Number(answer.retryAfter) > 0;
      if (!allowed)
        throw new Error(
          `not an allowed answer: ${JSON.stringify(answer, (_, v: unknown) => (typeof v === "bigint" ? `${v}` : v))}`,
        );
    }
  }

  /**
   * Storage holds what was acknowledged: every created plant (200) is there, every deleted one
   * (204) is gone; a write refused before storage acted (503 STORAGE_UNAVAILABLE) changed nothing.
   * Only OUTCOME_UNKNOWN may have gone either way. Returns how many of each kind were checked.
   */
  async expectStorageMatches(databaseUrl: string): Promise<Record<string, number>> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const rows = await client.query<{ id: string; name: string }>("SELECT id::text AS id, name FROM plants");
    await client.end();
    const stored = new Set(rows.rows.map((row) => BigInt(row.id)));
    const names = new Map(rows.rows.map((row) => [BigInt(row.id), row.name]));
    const tally: Record<string, number> = {};
    const expectName = (answer: LoadAnswer, actual: string | undefined, wanted: string, kind: string) => {
      tally[kind] = (tally[kind] ?? 0) + 1;
      if (actual !== wanted) throw new Error(`plant ${answer.id}: ${kind}, yet its name is ${actual ?? "(no plant)"}`);
    };
    const expect = (answer: LoadAnswer, present: boolean, kind: string) => {
      tally[kind] = (tally[kind] ?? 0) + 1;
      if (stored.has(answer.id) !== present) {
        throw new Error(`plant ${answer.id}: ${kind}, yet it is ${present ? "missing" : "stored"}`);
      }
    };
    for (const answer of this.answers) {
      if (answer.op === "edit") {
        const name = names.get(answer.id);
        if (answer.status === 200) expectName(answer, name, `edited ${answer.id}`, "edited");
        if (answer.status === 503 && answer.code === ErrorCode.STORAGE_UNAVAILABLE) {
          expectName(answer, name, `plant ${answer.id}`, "edit refused");
        }
        continue;
      }
      if (answer.op !== "create" && answer.op !== "delete") continue;
      const refused = answer.status === 503 && answer.code === ErrorCode.STORAGE_UNAVAILABLE;
      if (answer.op === "create" && answer.status === 200) expect(answer, true, "created");
      if (answer.op === "create" && refused) expect(answer, false, "create refused");
      if (answer.op === "delete" && answer.status === 204) expect(answer, false, "deleted");
      if (answer.op === "delete" && refused) expect(answer, true, "delete refused");
    }
    return tally;
  }

  private async one(): Promise<void> {
    const kind = (["create", "delete", "edit", "get", "list"] as const)[this.turn++ % 5]!;
    // Deletes take ids from the start, edits from the end; when they would meet, read instead.
    if ((kind === "delete" || kind === "edit") && this.nextDelete + this.nextEdit > this.preloaded.length) {
      return this.record("get", this.preloaded[0]!);
    }
    const id =
      kind === "create"
        ? this.nextCreate++
        : kind === "delete"
          ? this.preloaded[this.nextDelete++]!
          : kind === "edit"
            ? this.preloaded[this.preloaded.length - this.nextEdit++]!
            : this.pick();
    return this.record(kind, id);
  }

  private pick(): bigint {
    return this.preloaded[Math.floor(Math.random() * this.preloaded.length)]!;
  }

  private async record(op: LoadAnswer["op"], id: bigint): Promise<void> {
    const headers = { authorization: `Bearer ${TOKEN}` };
    let response: Response;
    try {
      response =
        op === "create"
          ? await post(this.baseUrl, id)
          : op === "delete"
            ? await fetch(`${this.baseUrl}/plants/${id}`, { method: "DELETE", headers })
            : op === "edit"
              ? await fetch(`${this.baseUrl}/plants/${id}`, {
                  method: "PUT",
                  headers: { ...headers, "content-type": "application/json" },
                  body: JSON.stringify({ name: `edited ${id}` }),
                })
              : op === "get"
                ? await fetch(`${this.baseUrl}/plants/${id}`, { headers })
                : await fetch(`${this.baseUrl}/plants?limit=10&after=${id}`, { headers });
    } catch {
      this.answers.push({ op, id, status: 0, retryAfter: null });
      return;
    }
    const text = await response.text();
    const code = response.status >= 400 ? (JSON.parse(text) as { error?: number }).error : undefined;
    this.answers.push({
      op,
      id,
      status: response.status,
      ...(code === undefined ? {} : { code }),
      retryAfter: response.headers.get("retry-after"),
    });
  }
}

function post(baseUrl: string, id: bigint): Promise<Response> {
  return fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: stringify({ id, name: `plant ${id}` }),
  });
}
