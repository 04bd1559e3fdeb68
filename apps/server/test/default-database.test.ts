import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { defaultDatabasePath } from "../src/default-database.js";
import { killSpawnedServers, MAIN, spawnServer, stringify } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/**
 * The default database (no DATABASE_URL) is one file whatever the working directory. Run on a copy
 * of the built server laid out as a checkout (apps/server in a pnpm workspace), so that the tests
 * never touch this checkout's own data/plantstore.db.
 */
const PACKAGE = dirname(dirname(MAIN));
const checkout = realpathSync(mkdtempSync(join(tmpdir(), "plantstore-checkout-")));
const server = join(checkout, "apps", "server");
mkdirSync(server, { recursive: true });
writeFileSync(join(checkout, "pnpm-workspace.yaml"), "packages:\n  - apps/*\n");
cpSync(join(PACKAGE, "package.json"), join(server, "package.json"));
cpSync(join(PACKAGE, "dist"), join(server, "dist"), { recursive: true });
symlinkSync(join(PACKAGE, "node_modules"), join(server, "node_modules"));
const copiedMain = join(server, "dist", "main.js");
const expected = join(checkout, "data", "plantstore.db");

afterEach(killSpawnedServers);
afterAll(() => rmSync(checkout, { recursive: true, force: true }));

/** The `location` the listening line names. */
function locationOf(output: string): string | undefined {
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
  return line === undefined ? undefined : (JSON.parse(line) as { location?: string }).location;
}

describe("the default database", () => {
  it("is the repository's data/plantstore.db from any working directory; `tokens` from the root agrees", async () => {
    // The deploy doc's command: cd apps/server && node dist/main.js.
    const fromPackage = await spawnServer({ DATABASE_URL: "" }, copiedMain, server);
    expect(locationOf(fromPackage.output())).toBe(expected);
    const elsewhere = await spawnServer({ DATABASE_URL: "" }, copiedMain, tmpdir());
    expect(locationOf(elsewhere.output())).toBe(expected);
    elsewhere.child.kill("SIGTERM");
    await elsewhere.exited;

    // `npm run tokens -- create` runs `node apps/server/dist/main.js tokens create` from the root.
    const created = spawnSync(process.execPath, [copiedMain, "tokens", "create", "root"], {
      cwd: checkout,
      env: { ...process.env, DATABASE_URL: "" },
      encoding: "utf8",
    });
    expect(created.status).toBe(0);
    expect(created.stderr).toContain(`plantstore-server tokens: SQLite database ${expected}\n`);
    const token = created.stdout.trim();
    const status = async () =>
      (
        await fetch(`${fromPackage.url}/plants`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: stringify({ id: 1n, name: "Fern" }),
        })
      ).status;
    await waitFor("the token made from the root to be accepted", async () => (await status()) === 200);
    fromPackage.child.kill("SIGTERM");
    expect(await fromPackage.exited).toBe(0);
  });

  it("is data/plantstore.db in the package's own directory when it is not in a checkout", () => {
    const installed = mkdtempSync(join(tmpdir(), "plantstore-installed-"));
    try {
      expect(defaultDatabasePath(join(installed, "app"))).toBe(join(installed, "app", "data", "plantstore.db"));
      expect(defaultDatabasePath(server)).toBe(expected);
    } finally {
      rmSync(installed, { recursive: true, force: true });
    }
  });

  it("is named by every admin command, PostgreSQL's without its password", () => {
    const run = (databaseUrl: string, ...args: string[]) =>
      spawnSync(process.execPath, [MAIN, ...args], {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        encoding: "utf8",
      });
    const file = join(checkout, "named.db");
    for (const args of [
      ["tokens", "list"],
      ["webhooks", "list"],
      ["webhooks", "deliveries"],
    ]) {
      const result = run(`sqlite:${file}`, ...args);
      expect(result.status, args.join(" ")).toBe(0);
      expect(result.stderr).toBe(`plantstore-server ${args[0]}: SQLite database ${file}\n`);
    }
    // Bad usage needs no database, and says nothing of one.
    expect(run(`sqlite:${file}`, "tokens", "revoke", "x").stderr).not.toContain("database");
    // PostgreSQL: named before it is reached, never with the password.
    const unreachable = run("postgres://admin:s3cret-password@127.0.0.1:1/plants", "tokens", "list");
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toContain("127.0.0.1:1");
    expect(unreachable.stderr).not.toContain("s3cret-password");
  });
});
