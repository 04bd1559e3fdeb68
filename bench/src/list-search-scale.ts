// Pages of GET /plants with and without a name prefix, an order and a count, in a large store, on
// SQLite or PostgreSQL: the real server, sequential requests, medians. The figures in docs/api.md
// ("Finding plants by name") come from it.
//
//   node dist/list-search-scale.js [--plants 1000000] [--postgres <url of an empty database>]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@plantstore/server";
import pg from "pg";
import { fillLargeStore } from "./large-store.js";
import { LARGE_STORE_FIRST_ID } from "./scenarios.js";

const TOKEN = "list-search-scale-token-0123456789";
const WARMUP = 5;
const RUNS = 31;

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** The same plants as fillLargeStore (ids from LARGE_STORE_FIRST_ID, `Plant <n>`, every other tagged), in PostgreSQL. */
async function fillLargePostgresStore(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO plants (id, name, tag)
       SELECT $1::bigint + n, 'Plant ' || n, CASE WHEN n % 2 = 0 THEN 'indoor' END FROM generate_series(0, $2 - 1) AS n`,
      [LARGE_STORE_FIRST_ID, count],
    );
    await client.query("VACUUM ANALYZE plants");
  } finally {
    await client.end();
  }
}

/** Exact count(*) of the whole table, straight from the database: what an exact count would cost. */
async function exactCountMs(databaseUrl: string): Promise<number> {
  const times: number[] = [];
  if (databaseUrl.startsWith("sqlite:")) {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(databaseUrl.slice("sqlite:".length), { readonly: true });
    const statement = db.prepare("SELECT count(*) FROM plants");
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      statement.get();
      times.push(performance.now() - start);
    }
    db.close();
  } else {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      await client.query("SELECT count(*) FROM plants");
      times.push(performance.now() - start);
    }
    await client.end();
  }
  return median(times);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const plants = Number(option("plants") ?? 1_000_000);
  const postgres = option("postgres");
  const workDir = mkdtempSync(join(tmpdir(), "list-search-scale-"));
  const databaseUrl = postgres ?? `sqlite:${join(workDir, "large.db")}`;
  const config = { host: "127.0.0.1", port: 0, databaseUrl, tokens: [TOKEN], logLevel: "silent" as const };
  try {
    await (await startServer(config)).close(); // the schema, with every migration
    const fillStart = performance.now();
    if (postgres === undefined) fillLargeStore(join(workDir, "large.db"), plants);
    else await fillLargePostgresStore(postgres, plants);
    console.error(`filled ${plants} plants in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);
    const server = await startServer(config);
    try {
      const middle = LARGE_STORE_FIRST_ID + Math.floor(plants / 2);
      const queries = [
        "limit=100",
        `limit=100&after=${middle}`,
        "limit=100&order=desc",
        `limit=100&order=desc&after=${middle}`,
        "limit=100&tag=indoor",
        "limit=100&tag=indoor&order=desc",
        "limit=100&name=plant%20123456",
        "limit=100&name=PLANT%2012345",
        "limit=100&name=plant%201234",
        "limit=100&name=plant%20123",
        "limit=100&name=plant%2012",
        "limit=100&name=plant%201",
        "limit=100&name=plant%201&order=desc",
        `limit=100&name=plant%201&after=${middle}`,
        "limit=100&name=plant",
        "limit=100&name=plant&order=desc",
        "limit=100&name=plant%209",
        "limit=100&name=zzz",
        "limit=100&tag=indoor&name=plant%2012345",
        "limit=100&tag=indoor&name=plant%201",
        "limit=1000&name=plant",
        "limit=1&count=true",
        "limit=1&count=true&tag=indoor",
        "limit=1&count=true&name=plant%201",
        "limit=1&count=true&name=plant%2012345",
        "limit=1&count=true&tag=indoor&name=plant%201",
      ];
      // CPU time of this process (the server, its SQLite reader thread and the client's fetch) per
      // request, besides the wall time: on a machine shared with other work, the wall time mostly
      // measures the wait for a core.
      const backend = postgres ? "PostgreSQL" : "SQLite";
      console.log(`| query (${plants.toLocaleString("en")} plants, ${backend}) | plants | count | CPU ms | wall ms |`);
      console.log("| --- | ---: | ---: | ---: | ---: |");
      for (const query of queries) {
        const times: number[] = [];
        const cpu: number[] = [];
        let plantsAnswered = 0;
        let count: string | null = null;
        for (let i = 0; i < WARMUP + RUNS; i++) {
          const start = performance.now();
          const startCpu = process.cpuUsage();
          const response = await fetch(`${server.url}/plants?${query}`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          });
          const body = await response.text();
          const used = process.cpuUsage(startCpu);
          if (response.status !== 200) throw new Error(`${query}: ${response.status} ${body}`);
          if (i >= WARMUP) {
            times.push(performance.now() - start);
            cpu.push((used.user + used.system) / 1000);
          }
          plantsAnswered = (body.match(/"id":/g) ?? []).length;
          count = response.headers.get("plant-store-count");
        }
        const shown = `| \`${query}\` | ${plantsAnswered} | ${count ?? ""} | ${median(cpu).toFixed(2)} |`;
        console.log(`${shown} ${median(times).toFixed(2)} |`);
      }
      const exact = await exactCountMs(databaseUrl);
      console.log(`| exact \`SELECT count(*) FROM plants\` (in the database) | | | | ${exact.toFixed(2)} |`);
    } finally {
      await server.close();
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
