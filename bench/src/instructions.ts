// `pnpm --filter @plantstore/bench bench:instructions`: CPU instructions per request, per scenario,
// counted by valgrind's callgrind. Unlike req/s (±30 % on this shared machine), the count for one
// build and one request sequence barely moves from run to run, so a regression shows on a noisy day.
//
// The server runs under callgrind (`node --single-threaded`: V8 compiles and collects on the main
// thread, so no helper thread's timing changes the count) and gets a fixed sequence of requests, one
// after another over one keep-alive connection, from a client outside valgrind. Two runs per scenario,
// N and 2N requests: (I(2N) − I(N)) / N cancels start-up, shutdown and the first N's warm-up.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";
import { cliArguments } from "./cli-arguments.js";
import { resultsDir, serverMain } from "./paths.js";
import { startWebhookReceiver } from "./bench-services.js";
import { freePort, waitForPort } from "./processes.js";
import { BENCH_WEBHOOK_SECRET, RATE_LIMIT_TOO_HIGH_TO_REFUSE } from "./targets.js";

/**
 * `create-ratelimited` and `create-webhooks` are creates with a rate limit too high to refuse, and
 * with one webhook endpoint (a receiver in this process; its deliveries are counted with their
 * creates): each against `create`, the cost of the feature per request.
 */
const SCENARIOS = [
  "create",
  "create-ratelimited",
  "create-webhooks",
  "replay",
  "get",
  "list",
  "unauth",
  "forbidden",
  "notfound",
  "method",
] as const;
type Scenario = (typeof SCENARIOS)[number];

function send(agent: Agent, port: number, method: string, path: string, token: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The n-th request of a scenario (deterministic: the same sequence every run). */
function nth(scenario: Scenario, n: number): { method: string; path: string; body?: string } {
  const plant = (id: number) => `{"id":${id},"name":"Monstera deliciosa","tag":"indoor"}`;
  switch (scenario) {
    case "create":
    case "create-ratelimited":
    case "create-webhooks":
    case "unauth":
    case "forbidden":
      return { method: "POST", path: "/plants", body: plant(1_000_000 + n) };
    case "notfound":
      return { method: "GET", path: `/plant-pots/${n}` };
    case "method":
      return { method: "DELETE", path: "/plants" };
    case "replay":
      return { method: "POST", path: "/plants", body: plant(-(1 + (n % 100))) };
    case "get":
      return { method: "GET", path: `/plants/${-(1 + (n % 100))}` };
    case "list":
      return { method: "GET", path: "/plants?limit=100" };
  }
}

let runs = 0;

/** Instructions the server executed, from start to exit, answering `count` requests of `scenario`. */
async function countInstructions(
  scenario: Scenario,
  count: number,
  workDir: string,
  { main, concurrency }: { main: string; concurrency: number },
): Promise<number> {
  const port = await freePort();
  const token = `instr-${randomBytes(16).toString("hex")}`;
  // Every count gets its own files: a scenario named twice (to see how repeatable the count is) must
  // not find the first one's database (its creates would be replays) or output.
  const name = `${++runs}-${scenario}-${count}`;
  const out = join(workDir, `${name}.out`);
  const receiver = scenario === "create-webhooks" ? await startWebhookReceiver() : undefined;
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      `--callgrind-out-file=${out}`,
      process.execPath,
      // One thread for V8's own work, and fixed seeds for its hash tables and Math.random: the same
      // work for the same requests, run after run.
      "--single-threaded",
      "--hash-seed=1",
      "--random-seed=1",
      main,
    ],
    {
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: `sqlite:${join(workDir, `${name}.db`)}`,
        // The forbidden scenario's token may only read (the bench's own convention, targets.ts).
        PLANTSTORE_TOKENS: `${token},${token}-readonly:plants:read`,
        LOG_LEVEL: "info",
        ...(scenario === "create-ratelimited" ? { PLANTSTORE_RATE_LIMIT: RATE_LIMIT_TOO_HIGH_TO_REFUSE } : {}),
        ...(receiver === undefined
          ? {}
          : { PLANTSTORE_WEBHOOK_URLS: receiver.url, PLANTSTORE_WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET }),
      },
      stdio: "ignore",
    },
  );
  // Under valgrind, on a machine others share, Node takes minutes to start.
  await waitForPort(port, child, 900_000);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const poolSize = 100; // the plants replays and reads find
  for (let n = 0; n < poolSize; n++) await send(agent, port, "POST", "/plants", token, nth("replay", n).body);
  const expected = { unauth: 401, forbidden: 403, notfound: 404, method: 405 }[scenario as string] ?? 200;
  const tokenOf = (scenario: Scenario) =>
    scenario === "unauth" ? `wrong-${token}` : scenario === "forbidden" ? `${token}-readonly` : token;
  // `concurrency` clients, each on its own connection, each sending the next request of the
  // sequence once its previous one is answered: with more than one, requests are in flight together,
  // as under load, and what the server does per batch of them (group commit, the reader's) is shared.
  let next = 0;
  const client = async () => {
    while (next < count) {
      const n = next++;
      const { method, path, body } = nth(scenario, n);
      const status = await send(agent, port, method, path, tokenOf(scenario), body);
      if (status !== expected) throw new Error(`${scenario} request ${n} got ${status}, expected ${expected}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  agent.destroy();
  // Every create's delivery is part of its cost: wait until the receiver has them all.
  if (receiver !== undefined) {
    const deadline = Date.now() + 600_000;
    while (receiver.received() < poolSize + count) {
      if (Date.now() > deadline) throw new Error(`${receiver.received()} of ${poolSize + count} deliveries arrived`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  await receiver?.close();
  // One file per thread (the SQLite writer thread too): add them all up.
  return readdirSync(workDir)
    .filter((file) => file.startsWith(`${name}.out`))
    .reduce((sum, file) => {
      const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(workDir, file), "utf8"))?.[1];
      return sum + Number(totals ?? 0);
    }, 0);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: cliArguments(),
    options: {
      requests: { type: "string", default: "1000" },
      scenarios: { type: "string" },
      // Another build of the server (say, a copy of apps/server/dist from before a change) to count.
      "server-main": { type: "string", default: serverMain },
      // Requests in flight together (one connection each); 1: one request at a time.
      concurrency: { type: "string", default: "1" },
      // Where to write the table (a count of another build must not overwrite results/instructions.md).
      out: { type: "string", default: resultsDir },
    },
  });
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    console.error("bench:instructions: valgrind not found: install it with `apt-get install valgrind` and run again");
    return 1;
  }
  const main = values["server-main"];
  const concurrency = Number(values.concurrency);
  if (!existsSync(main)) throw new Error(`${main} does not exist: build first (pnpm build)`);
  const n = Number(values.requests);
  const chosen = (values.scenarios?.split(",") ?? SCENARIOS) as Scenario[];
  const workDir = mkdtempSync(join(tmpdir(), "plantstore-instructions-"));
  const rows: Array<{ scenario: Scenario; instructionsPerRequest: number }> = [];
  try {
    for (const scenario of chosen) {
      const once = await countInstructions(scenario, n, workDir, { main, concurrency });
      const twice = await countInstructions(scenario, 2 * n, workDir, { main, concurrency });
      const perRequest = (twice - once) / n;
      rows.push({ scenario, instructionsPerRequest: Math.round(perRequest) });
      console.log(
        `${scenario}: ${Math.round(perRequest).toLocaleString("en")} instructions/request (I(${2 * n}) − I(${n}), over ${n})`,
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const markdown = [
    "# Instructions per request (callgrind)",
    "",
    `${new Date().toISOString()} · commit ${commit}${main === serverMain ? "" : ` (server ${main})`} · Node ${process.version} --single-threaded under valgrind --tool=callgrind · (I(${2 * n}) − I(${n})) / ${n} requests, ${concurrency === 1 ? "one connection, one request at a time" : `${concurrency} connections, a request in flight on each`}`,
    "",
    "| scenario | instructions / request |",
    "|---|---:|",
    ...rows.map((row) => `| ${row.scenario} | ${row.instructionsPerRequest.toLocaleString("en")} |`),
    "",
  ].join("\n");
  writeFileSync(join(values.out, "instructions.md"), markdown);
  writeFileSync(join(values.out, "instructions.json"), `${JSON.stringify({ commit, requests: n, rows }, null, 2)}\n`);
  console.log(`\n${markdown}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:instructions: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
