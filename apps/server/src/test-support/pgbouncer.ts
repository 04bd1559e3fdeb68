import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { delimiter } from "node:path";
import { findOnPath, optionalTool, type Availability } from "@plantstore/vitest-config/optional";
import { waitFor } from "./wait-for.js";

/** Debian installs it in /usr/sbin, which is not on every user's PATH. */
const SEARCH_PATH = [process.env.PATH ?? "", "/usr/sbin", "/usr/local/sbin"].join(delimiter);

/** Whether the PgBouncer suites run: skipped with one line without pgbouncer, failed under CI=true. */
export function pgbouncerTarget(): Availability {
  return optionalTool({
    name: "pgbouncer",
    isAvailable: () => findOnPath("pgbouncer", SEARCH_PATH) !== undefined,
    install: "apt-get install pgbouncer",
  });
}

export interface PgBouncer {
  /** A connection string through PgBouncer to the database, with `search_path` set to `schema`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Test support: a PgBouncer of its own on an ephemeral port, in transaction pooling mode, in front
 * of the database `databaseUrl` names. PgBouncer cannot pass a client's `options` (search_path)
 * through transaction pooling, so the schema is set on each server connection it opens
 * (connect_query). Trust authentication: the user only has to be listed.
 */
export async function startPgBouncer(databaseUrl: string, schema: string): Promise<PgBouncer> {
  const upstream = new URL(databaseUrl);
  const user = decodeURIComponent(upstream.username || "postgres");
  const database = upstream.pathname.slice(1) || user;
  const directory = mkdtempSync(join(tmpdir(), "plantstore-pgbouncer-"));
  const port = await freePort();
  const config = join(directory, "pgbouncer.ini");
  writeFileSync(
    config,
    `[databases]
plantstore = host=${upstream.hostname} port=${upstream.port || 5432} dbname=${database} user=${user} connect_query='SET search_path TO ${schema}'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(directory, "userlist.txt")}
pool_mode = transaction
default_pool_size = 8
max_client_conn = 200
server_reset_query =
ignore_startup_parameters = extra_float_digits
`,
  );
  writeFileSync(join(directory, "userlist.txt"), `"${user}" ""\n`);
  // PgBouncer refuses to run as root; as root it drops to nobody, who must read its files.
  chmodSync(directory, 0o755);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(
    findOnPath("pgbouncer", SEARCH_PATH)!,
    [...(asRoot ? ["-u", "nobody"] : []), config],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitFor(
    "pgbouncer to listen",
    () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${log}`);
      return new Promise<boolean>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
    },
    { timeoutMs: 10_000 },
  );
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/plantstore`,
    async stop() {
      child.kill("SIGINT");
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
