// The server image as deployers run it: built from this repository with the Dockerfile at its root
// and run by Docker or Podman (whichever works here; skipped with one line where neither does, and
// required under CI=true). Each test below is one promise the image makes (docs/deploy.md).
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "@plantstore/vitest-config/optional";
import {
  containerEngine,
  holdMachineLock,
  REPOSITORY_ROOT,
  type Engine,
} from "../src/test-support/container-engine.js";
import { createTestSchema, postgresTestTarget, type TestSchema } from "../src/test-support/test-database.js";
import { stringify, TOKEN } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

/** The budget: what the runtime stage may add to its Node base, as the engine reports sizes. */
const SIZE_BUDGET_BYTES = 60 * 1000 * 1000;
/** Above 2^53: a double would round it, so it must come back digit for digit. */
const BIG_ID = 9_007_199_254_740_993n;
/** The hardening every serving container here runs with. */
const HARDENED = ["--read-only", "--tmpfs", "/tmp", "--cap-drop=ALL", "--security-opt", "no-new-privileges"];
const { version } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "apps/server/package.json"), "utf8")) as {
  version: string;
};

const run = randomBytes(4).toString("hex");
const image = `localhost/plantstore-test:${run}`;
const volume = `plantstore-test-${run}`;
const postgres = await postgresTestTarget();

describeWith(containerEngine(), "the server image", (anyRun: Engine) => {
  // Everything this run creates is labelled with its id: removed after it, on Ctrl-C or any exit too,
  // and by the next run when this one was killed outright. (When the suite is skipped, describeWith
  // calls this body with no engine, only to list its tests: nothing here may use it outside a test
  // or hook.)
  const engine = anyRun?.forRun(run) as Engine;
  const containers: string[] = [];
  let releaseLock = () => {};
  let stopRemovingOnInterruption = () => {};
  let baseImage = "";

  /** A server container, detached, its name recorded for cleanup. */
  async function start(options: string[], args: string[] = []): Promise<string> {
    const name = `plantstore-test-${run}-${containers.length}`;
    containers.push(name);
    await engine.must("run", "--detach", "--name", name, ...options, image, ...args);
    return name;
  }

  /** The address of a container serving on a published port, once its "listening" line is logged. */
  async function listening(container: string): Promise<string> {
    await waitFor(`${container} to listen`, async () => /"msg":"listening"/.test(await engine.logs(container)), {
      timeoutMs: 60_000,
    });
    return engine.publishedUrl(container, 3000);
  }

  /** `docker stop` with the engine's default 10 s; the container's exit code. */
  async function stop(container: string): Promise<number> {
    await engine.must("stop", "--time", "10", container);
    return Number(await engine.must("inspect", "--format", "{{.State.ExitCode}}", container));
  }

  const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: stringify(body) }),
    });

  beforeAll(async () => {
    releaseLock = await holdMachineLock("plantstore-container-test");
    // Holding the lock, no other run is alive: whatever a run left is a killed run's.
    const left = engine.sweep();
    if (left > 0) console.info(`container test: removed ${left} containers, volumes and images of killed runs`);
    stopRemovingOnInterruption = engine.removeOnInterruption(run);
    await engine.must("volume", "create", volume);
    baseImage = await engine.nodeBaseImage();
    const started = Date.now();
    await engine.build(image, baseImage, version);
    console.info(`container test: ${image} built on ${baseImage} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }, 30 * 60_000);

  afterAll(async () => {
    // --volumes: the anonymous /data volumes of containers that mounted no named one.
    for (const container of containers) await engine.run("rm", "--force", "--volumes", container);
    await engine.run("volume", "rm", "--force", volume);
    await engine.run("image", "rm", image);
    engine.sweep(run);
    stopRemovingOnInterruption();
    releaseLock();
  }, 120_000);

  it("adds at most 60 MB to its Node base", async () => {
    const added = (await engine.imageSize(image)) - (await engine.imageSize(baseImage));
    console.info(`container test: the image adds ${(added / 1e6).toFixed(1)} MB to ${baseImage}`);
    expect(added).toBeLessThanOrEqual(SIZE_BUDGET_BYTES);
  });

  it("holds no compiler, no dev dependency, no test and no sources: only the built server", async () => {
    const found = await engine.must(
      "run",
      "--rm",
      "--entrypoint",
      "sh",
      image,
      "-c",
      [
        "for tool in gcc cc g++ make python3 tsc; do command -v $tool; done",
        "ls /usr/src/app/apps/server/node_modules/.pnpm | grep -E '^(typescript@|vitest@|@vitest\\+|eslint@|vite@|esbuild@|playwright)' || true",
        "find / -xdev -name .git -print 2>/dev/null",
        "find /usr/src/app -name node_modules -prune -o \\( -name '*.test.*' -o -name '*.ts' ! -name '*.d.ts' \\) -print",
        "cd /usr/src/app && ls -d apps/* apps/server/* apps/web/*",
      ].join("; "),
    );
    expect(found.split("\n")).toEqual([
      "apps/server",
      "apps/server/dist",
      "apps/server/node_modules",
      "apps/server/package.json",
      "apps/server/pnpm-lock.yaml",
      "apps/web",
      "apps/web/dist",
    ]);
  });

  it("is labelled, runs node as a non-root user, and exposes 3000", async () => {
    const config = JSON.parse(await engine.must("image", "inspect", "--format", "{{json .Config}}", image)) as {
      User: string;
      Entrypoint: string[];
      ExposedPorts: Record<string, unknown>;
      Labels: Record<string, string>;
    };
    expect(config.User).toBe("node");
    expect(config.Entrypoint.slice(0, 1)).toEqual(["node"]);
    expect(Object.keys(config.ExposedPorts)).toEqual(["3000/tcp"]);
    expect(config.Labels).toMatchObject({
      "org.opencontainers.image.title": "Plant Store",
      "org.opencontainers.image.licenses": "MIT",
      "org.opencontainers.image.version": version,
      "org.opencontainers.image.source": expect.any(String),
    });
    const uid = await engine.must("run", "--rm", "--entrypoint", "node", image, "-p", "process.getuid()");
    expect(uid).not.toBe("0");
  });

  it("serves read-only and hardened, prints the first-run token, turns healthy, and stops with 0 on SIGTERM", async () => {
    const server = await start(["--publish", "127.0.0.1::3000", "--volume", `${volume}:/data`, ...HARDENED]);
    const url = await listening(server);
    // No token configured: the admin token made on first start is in the container's log.
    const token = (
      await waitFor(
        "the first-run token in the log",
        async () => /ps_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/.exec(await engine.logs(server)) ?? undefined,
      )
    )[0];
    // How to manage tokens, as run from outside the container: not the path of main.js inside it.
    expect(await engine.logs(server)).toContain(
      "Manage tokens with: docker run --rm -v plantdata:/data plantstore tokens list | create [label] | revoke <id>",
    );
    const created = await call(url, "POST", "/plants", token, { id: BIG_ID, name: "Fern" });
    expect(created.status).toBe(200);
    expect(await waitFor("a healthy container", async () => (await engine.health(server)) === "healthy")).toBe(true);
    // The web app is in the image: / serves its page.
    const page = await fetch(`${url}/`);
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await stop(server)).toBe(0);
    expect(await engine.logs(server)).toMatch(/"clean":true,"msg":"stopped"/);
  });

  it("keeps its data on the volume across re-creation, and `tokens create` in the same image adds a token it accepts", async () => {
    // The server of the previous test is stopped; its container goes, the volume stays.
    await engine.must("rm", "--force", ...containers);
    const created = await engine.must(
      "run",
      "--rm",
      "--volume",
      `${volume}:/data`,
      ...HARDENED,
      image,
      "tokens",
      "create",
      "ci",
      "--scopes",
      "plants:read",
    );
    const reader = /^ps_\S+$/m.exec(created)?.[0];
    expect(reader).toBeDefined();

    const server = await start(["--publish", "127.0.0.1::3000", "--volume", `${volume}:/data`, ...HARDENED]);
    const url = await listening(server);
    const read = await call(url, "GET", `/plants/${BIG_ID}`, reader!);
    expect(read.status).toBe(200);
    expect(await read.text()).toContain(`"id":${BIG_ID},"name":"Fern"`);
    // Read-only scope: the token is the one just created, not any token.
    expect((await call(url, "POST", "/plants", reader!, { id: 1, name: "Ivy" })).status).toBe(403);
    expect(await stop(server)).toBe(0);
  });

  it("with a request still in flight at docker stop, gives up within its budget (before the engine's 10 s) and exits itself", async () => {
    // Only the shutdown deadline may end the stuck request below, not the body's own deadline.
    const bodyDeadline = ["--env", "PLANTSTORE_BODY_TIMEOUT_MS=60000"];
    const server = await start([
      "--publish",
      "127.0.0.1::3000",
      "--env",
      `PLANTSTORE_TOKENS=${TOKEN}`,
      ...bodyDeadline,
      ...HARDENED,
    ]);
    const url = new URL(await listening(server));
    // A create whose body never ends: only the shutdown deadline ends it.
    const stuck = request({
      host: url.hostname,
      port: url.port,
      path: "/plants",
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        "content-length": 100,
        // The server's 100 Continue says it holds the request.
        expect: "100-continue",
      },
    });
    stuck.on("error", () => undefined);
    const held = new Promise<void>((resolve) => stuck.once("continue", () => resolve()));
    stuck.flushHeaders();
    await held;
    stuck.write('{"id": 2, "name": ');
    // Killed by the engine at 10 s, it would exit 137; cut by its own 8 s budget, it exits 1 and says so.
    expect(await stop(server)).toBe(1);
    expect(await engine.logs(server)).toMatch(/"clean":false,"msg":"stopped"/);
    stuck.destroy();
  });

  describeWith(postgres, "on PostgreSQL", (databaseUrl: string) => {
    let schema: TestSchema;
    beforeAll(async () => {
      schema = await createTestSchema(databaseUrl);
    });
    afterAll(() => schema?.drop());

    it("two instances share one store: a plant created through one is read, edited and deleted through the other", async () => {
      // Host networking reaches the host's PostgreSQL at 127.0.0.1; each server takes a free port.
      const instance = async () => {
        const name = await start([
          "--network",
          "host",
          "--env",
          "HOST=127.0.0.1",
          "--env",
          "PORT=0",
          "--env",
          `DATABASE_URL=${schema.url}`,
          "--env",
          `PLANTSTORE_TOKENS=${TOKEN}`,
          ...HARDENED,
        ]);
        const line = await waitFor(
          `${name} to listen`,
          async () => /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(await engine.logs(name)) ?? undefined,
          { timeoutMs: 60_000 },
        );
        return line[1]!;
      };
      const [one, other] = [await instance(), await instance()];
      expect((await call(one, "POST", "/plants", TOKEN, { id: BIG_ID, name: "Monstera" })).status).toBe(200);
      const read = await call(other, "GET", `/plants/${BIG_ID}`, TOKEN);
      expect(await read.text()).toContain(`"id":${BIG_ID},"name":"Monstera"`);
      // Edited through the other, on the version it read; the first sees the edit and its ETag.
      const edited = await fetch(`${other}/plants/${BIG_ID}`, {
        method: "PUT",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          "if-match": read.headers.get("etag")!,
        },
        body: '{"name": "Monstera deliciosa"}',
      });
      expect(edited.status).toBe(200);
      const reread = await call(one, "GET", `/plants/${BIG_ID}`, TOKEN);
      expect(await reread.text()).toBe(`{"id":${BIG_ID},"name":"Monstera deliciosa"}`);
      expect(reread.headers.get("etag")).toBe(edited.headers.get("etag"));
      expect((await call(other, "DELETE", `/plants/${BIG_ID}`, TOKEN)).status).toBe(204);
      expect((await call(one, "GET", `/plants/${BIG_ID}`, TOKEN)).status).toBe(404);
    });
  });
});
