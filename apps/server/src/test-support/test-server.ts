import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { parseExactJson, stringifyExactJson, type PlantStoreContract } from "@plantstore/contract";
import { fileURLToPath } from "node:url";
import { startServer, type RunningServer } from "../server.js";
import type { Config } from "../config.js";
import { waitFor } from "./wait-for.js";

export const TOKEN = "test-token-0123456789abcdef0123456789";
export const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** JSON with bigints written as exact integer literals (the contract's writer). */
export const stringify = stringifyExactJson;

export interface TestServer extends RunningServer {
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** POST /plants that must answer 200 (a test's setup); throws with the answer otherwise. */
  create(plant: unknown): Promise<void>;
  /** The Authorization header value of the test token. */
  authorization: string;
  /** Any request to `path`, with the test token unless `headers` says otherwise. */
  call(method: string, path: string, headers?: Record<string, string>): Promise<Response>;
  /** PUT /plants/{id} with this body (a value, written as exact JSON, or text as it is). */
  put(id: bigint | string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** A response body with every id exact (what a careful consumer reads). */
export async function exactJson(response: Response): Promise<unknown> {
  return parseExactJson(await response.text());
}

/** The real server, in this process, on an ephemeral port (serving `options.contract`, when a test has its own). */
export async function startTestServer(
  overrides: Partial<Config>,
  options: { contract?: PlantStoreContract } = {},
): Promise<TestServer> {
  const running = await startServer(
    { host: "127.0.0.1", port: 0, tokens: [TOKEN], logLevel: "silent", ...overrides },
    options,
  );
  const server: TestServer = {
    ...running,
    authorization: `Bearer ${TOKEN}`,
    call(method, path, headers = {}) {
      return fetch(`${running.url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
    },
    post(body, headers = {}) {
      return fetch(`${running.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : stringify(body),
      });
    },
    async create(plant) {
      const response = await server.post(plant);
      if (response.status !== 200) throw new Error(`create answered ${response.status}: ${await response.text()}`);
    },
    put(id, body, headers = {}) {
      return fetch(`${running.url}/plants/${id}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : stringify(body),
      });
    },
  };
  return server;
}

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** Standard output and standard error, as they arrived. */
  output: () => string;
  /** Standard output alone (the JSON log lines). */
  stdout: () => string;
  exited: Promise<number | null>;
}

const spawned = new Set<ChildProcessWithoutNullStreams>();

/** Kills every server a test spawned and left running (a failed assertion skips its own stop). */
export function killSpawnedServers(): void {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  spawned.clear();
}

/** The built server as users run it (`node dist/main.js`, or `main`, from `cwd`), resolved once it listens. */
export async function spawnServer(env: Record<string, string>, main = MAIN, cwd?: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", PLANTSTORE_TOKENS: TOKEN, LOG_LEVEL: "info", ...env },
    cwd,
  });
  spawned.add(child);
  let output = "";
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A deadline for a hung start, not a speed: a Node start on a busy 2-core machine took over 15 s.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output, stdout: () => stdout, exited };
}

/** Waits until the process has printed something matching `pattern`; returns the match. */
export function waitForOutput(server: ServerProcess, pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
  return waitFor(`output matching ${pattern}`, () => pattern.exec(server.output()) ?? undefined, { timeoutMs }).catch(
    (error: Error) => Promise.reject(new Error(`${error.message}; the output was:\n${server.output()}`)),
  );
}
