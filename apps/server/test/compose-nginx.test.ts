import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { availability, describeWith, findOnPath, isExecutable } from "@plantstore/vitest-config/optional";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { spawnServer, stringify, TOKEN, type ServerProcess } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * compose.yaml's nginx, run for real: the very configuration text of its `configs.nginx`, in front
 * of two server processes on one PostgreSQL, or of an "instance" that takes a request and dies.
 */
const COMPOSE = fileURLToPath(new URL("../../../compose.yaml", import.meta.url));
const nginxPath = findOnPath("nginx") ?? ["/usr/sbin/nginx"].find(isExecutable);
const nginxTool = availability(
  "nginx",
  nginxPath
    ? { found: nginxPath }
    : { missing: "nginx not found", hint: "install it with `apt-get install nginx-light`" },
);
const postgres = await postgresTestTarget();

/** `configs.nginx.content` of compose.yaml, as nginx reads it (compose turns `$$` into `$`). */
function composeNginxConfig(): string {
  const lines = readFileSync(COMPOSE, "utf8").split("\n");
  const start = lines.findIndex((line, i) => line === "  nginx:" && lines[i + 1] === "    content: |");
  expect(start, "compose.yaml has configs.nginx.content").toBeGreaterThan(0);
  const body: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (line.trim() !== "" && !line.startsWith("      ")) break;
    body.push(line.slice(6));
  }
  return body.join("\n").replaceAll("$$", "$");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Nginx {
  url: string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
const directories: string[] = [];
afterEach(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
});
afterAll(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** nginx with compose's configuration, its two instances' addresses replaced by `upstreams`. */
async function startNginx(nginx: string, upstreams: [string, string]): Promise<Nginx> {
  const directory = mkdtempSync(join(tmpdir(), "plantstore-nginx-"));
  directories.push(directory);
  chmodSync(directory, 0o755); // nginx's workers may run as another user
  const port = await freePort();
  const config = composeNginxConfig()
    .replace("plantstore-1:3000", upstreams[0])
    .replace("plantstore-2:3000", upstreams[1])
    .replace("listen 8080;", `listen 127.0.0.1:${port};`);
  expect(config).toContain(upstreams[1]);
  const temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `${kind}_temp_path ${join(directory, kind)};`)
    .join("\n");
  // What the nginx image's /etc/nginx/nginx.conf wraps around conf.d/default.conf, in this directory.
  writeFileSync(
    join(directory, "nginx.conf"),
    `pid ${join(directory, "nginx.pid")};\nevents {}\nhttp {\naccess_log off;\n${temporary}\n${config}\n}\n`,
  );
  const child = spawn(nginx, [
    "-e",
    "stderr",
    "-p",
    directory,
    "-c",
    join(directory, "nginx.conf"),
    "-g",
    "daemon off;",
  ]);
  running.add(child);
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Listening is checked with a bare connection: a request would reach an instance, and count.
  await waitFor(`nginx to listen (its output: ${output})`, () => {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${output}`);
    return new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => resolve(true));
      socket.on("error", () => resolve(false));
      socket.on("connect", () => socket.destroy());
    });
  });
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      running.delete(child);
    },
  };
}

/** An instance that takes a request and dies before answering it (as one that committed, then crashed). */
async function dyingInstance(): Promise<{ address: string; received: () => number; close: () => void }> {
  let received = 0;
  const server: Server = createServer((socket) => {
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) {
        received++;
        socket.destroy();
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () => server.close(),
  };
}

/**
 * A request through nginx, with node:http rather than fetch: the suites record every fetch answer
 * of an API path and check it against the OpenAPI document, which describes the server, not
 * nginx's own 502.
 */
function viaNginx(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Headers; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === "string") headers.set(name, value);
        resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "content-type": "application/json" };

describeWith(nginxTool, "compose.yaml's nginx", (nginx: string) => {
  describeWith(postgres, "in front of two instances on PostgreSQL", (databaseUrl: string) => {
    let schema: TestSchema;
    const instances: ServerProcess[] = [];
    const address = (instance: ServerProcess) => new URL(instance.url).host;

    beforeAll(async () => {
      schema = await createTestSchema(databaseUrl);
      instances.push(...(await Promise.all([0, 1].map(() => spawnServer({ DATABASE_URL: schema.url })))));
    });
    afterAll(async () => {
      for (const instance of instances) instance.child.kill("SIGTERM");
      await Promise.all(instances.map((instance) => instance.exited));
      await schema?.drop();
    });

    it("never sends again a PUT, DELETE or POST that reached an instance which then died", async () => {
      const survivor = instances[1]!;
      const dying = await dyingInstance();
      try {
        for (const [id, method, body] of [
          [101, "PUT", { name: "edited" }],
          [102, "DELETE", undefined],
          [103, "POST", { id: 103, name: "created" }],
        ] as const) {
          if (method !== "POST") {
            const created = await fetch(`${survivor.url}/plants`, {
              method: "POST",
              headers: json,
              body: stringify({ id, name: "original" }),
            });
            expect(created.status).toBe(200);
          }
          // A fresh nginx for each, so that the dying instance is not yet marked down.
          const proxy = await startNginx(nginx, [dying.address, address(survivor)]);
          const before = dying.received();
          const path = method === "POST" ? "/plants" : `/plants/${id}`;
          const init =
            body === undefined ? { method, headers: auth } : { method, headers: json, body: stringify(body) };
          let status = 0;
          // Round robin: send until the dying instance has taken one. An answer before it came from
          // the survivor: undo it, so that the next attempt meets the same state.
          for (let attempt = 0; attempt < 10; attempt++) {
            const answer = await viaNginx(`${proxy.url}${path}`, init);
            if (dying.received() !== before) {
              status = answer.status;
              break;
            }
            await undo(survivor, method, id);
          }
          await proxy.stop();
          expect(dying.received(), `${method} reached the dying instance`).toBe(before + 1);
          // nginx said the instance failed (502), and the survivor never saw the request.
          expect(status, method).toBe(502);
          const now = await fetch(`${survivor.url}/plants/${id}`, { headers: auth });
          if (method === "POST") expect(now.status, method).toBe(404);
          else expect([now.status, ((await now.json()) as { name: string }).name], method).toEqual([200, "original"]);
        }
      } finally {
        dying.close();
      }
    });

    it("refuses a body over the server's limit itself, as JSON, before any instance reads it", async () => {
      const proxy = await startNginx(nginx, [address(instances[0]!), address(instances[1]!)]);
      const name = "x".repeat(16_384);
      const answer = await viaNginx(`${proxy.url}/plants/1`, {
        method: "PUT",
        headers: json,
        body: stringify({ name }),
      });
      expect(answer.status).toBe(413);
      // No instance answered: every answer of theirs carries a request id.
      expect(answer.headers.get("x-request-id")).toBeNull();
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(JSON.parse(answer.body)).toEqual({ error: 41301, message: "the body must be at most 16384 bytes" });
      // A body within the limit goes through.
      const within = await viaNginx(`${proxy.url}/plants`, {
        method: "POST",
        headers: json,
        body: stringify({ id: 201, name: "y".repeat(100) }),
      });
      expect(within.status).toBe(200);
      await proxy.stop();
    });

    it("sends every request to the other instance while one is down (connection refused)", async () => {
      const [down, up] = instances as [ServerProcess, ServerProcess];
      down.child.kill("SIGTERM");
      expect(await down.exited).toBe(0);
      const statuses: Record<string, number[]> = {};
      for (const [k, method] of ["POST", "GET", "PUT", "DELETE"].entries()) {
        // A fresh nginx for each method, which has not yet marked the stopped instance down; two
        // requests, so that one of them meets it first whichever instance round robin begins with.
        const proxy = await startNginx(nginx, [address(down), address(up)]);
        for (const id of [300 + 2 * k, 301 + 2 * k]) {
          if (method !== "POST") await undo(up, "DELETE", id); // creates it
          const path = method === "POST" ? "/plants" : `/plants/${id}`;
          const body =
            method === "POST"
              ? stringify({ id, name: "fern" })
              : method === "PUT"
                ? stringify({ name: "moss" })
                : undefined;
          const answer = await viaNginx(`${proxy.url}${path}`, { method, headers: json, body });
          (statuses[method] ??= []).push(answer.status);
        }
        await proxy.stop();
      }
      expect(statuses).toEqual({ POST: [200, 200], GET: [200, 200], PUT: [200, 200], DELETE: [204, 204] });
    });
  });
});

/** Puts plant `id` back as it was before `method` changed it on `instance`. */
async function undo(instance: ServerProcess, method: string, id: number): Promise<void> {
  const [undoMethod, path, body] =
    method === "POST"
      ? ["DELETE", `/plants/${id}`, undefined]
      : method === "DELETE"
        ? ["POST", "/plants", stringify({ id, name: "original" })]
        : ["PUT", `/plants/${id}`, stringify({ name: "original" })];
  const answer = await fetch(`${instance.url}${path}`, { method: undoMethod, headers: json, body });
  expect(answer.status).toBeLessThan(300);
}

describe("compose.yaml's published port", () => {
  it("is on the loopback interface unless PLANTSTORE_ADDRESS says otherwise", () => {
    expect(readFileSync(COMPOSE, "utf8")).toContain(
      '- "${PLANTSTORE_ADDRESS:-127.0.0.1}:${PLANTSTORE_PORT:-3000}:8080"',
    );
  });
});
