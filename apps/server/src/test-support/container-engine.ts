// The container test's tools: which engine runs containers here (Docker or Podman), the Node base
// image to build on, the image build, and the commands the test gives the engine.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { availability, findOnPath, type Availability } from "@plantstore/vitest-config/optional";
import { waitFor } from "./wait-for.js";

export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The base the Dockerfile names by default, and the stand-in built where it cannot be pulled. */
// Fully qualified: Podman would match a bare "node:…" to any local image whose name ends so.
export const OFFICIAL_NODE_IMAGE = "docker.io/library/node:26-bookworm-slim";
export const STAND_IN_NODE_IMAGE = "localhost/plantstore-stand-in/node:26-bookworm-slim";
const STAND_IN_SCRIPT = join(REPOSITORY_ROOT, "tooling/scripts/stand-in-node-image.sh");

export type EngineName = "docker" | "podman";

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The engine commands still running (a build, a run): stopped first when the test is interrupted. */
const running = new Set<ChildProcess>();

/** Runs a program to its end, collecting its output; never rejects for a non-zero exit. */
export function execute(program: string, args: string[], { input }: { input?: string } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    running.add(child);
    child.once("exit", () => running.delete(child));
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * The label on every container, volume and image the container test makes, valued with its run's id:
 * what an interrupted run could not remove, the next run finds by it and removes.
 */
export const TEST_RUN_LABEL = "org.plantstore.test-run";

/** The engine subcommands that create something, and so get the run's label. */
const CREATING = new Set(["run", "create", "build"]);

/** The engine's commands, as the test gives them. */
export class Engine {
  /** `runId`: every container, volume and image this engine creates is labelled with it. */
  constructor(
    readonly name: EngineName,
    readonly runId?: string,
  ) {}

  /** This engine for one test run: what it creates carries TEST_RUN_LABEL=runId. */
  forRun(runId: string): Engine {
    return new Engine(this.name, runId);
  }

  run(...args: string[]): Promise<Outcome> {
    return execute(this.name, this.labelled(args));
  }

  private labelled(args: string[]): string[] {
    if (this.runId === undefined) return args;
    const label = ["--label", `${TEST_RUN_LABEL}=${this.runId}`];
    const [command, ...rest] = args;
    if (command !== undefined && CREATING.has(command)) return [command, ...label, ...rest];
    if (command === "volume" && rest[0] === "create") return [command, "create", ...label, ...rest.slice(1)];
    return args;
  }

  /**
   * Removes the containers (with their anonymous volumes), named volumes and images labelled with
   * `runId`, or with any run's id when none is given (safe only while holding the machine lock: no
   * other run is alive). Synchronous, so that it also works in an exit handler. Returns how many.
   */
  sweep(runId?: string): number {
    const filter = ["--filter", `label=${TEST_RUN_LABEL}${runId === undefined ? "" : `=${runId}`}`];
    const list = (...args: string[]) =>
      spawnSync(this.name, [...args, ...filter], { encoding: "utf8" })
        .stdout?.split("\n")
        .filter((id) => id !== "") ?? [];
    let removed = 0;
    for (const [listing, removal] of [
      [
        ["ps", "--all", "--quiet"],
        ["rm", "--force", "--volumes"],
      ],
      [
        ["volume", "ls", "--quiet"],
        ["volume", "rm", "--force"],
      ],
      [
        ["images", "--quiet"],
        ["image", "rm", "--force"],
      ],
    ] as const) {
      const ids = [...new Set(list(...listing))];
      if (ids.length === 0) continue;
      spawnSync(this.name, [...removal, ...ids], { stdio: "ignore" });
      removed += ids.length;
    }
    return removed;
  }

  /**
   * Until the returned function is called: on Ctrl-C, SIGTERM, SIGHUP or any exit of this process,
   * stop the engine commands still running and remove what this run made. A SIGKILL leaves it for
   * the next run's sweep.
   */
  removeOnInterruption(runId: string): () => void {
    const cleanUp = () => {
      for (const child of running) child.kill("SIGTERM");
      this.sweep(runId);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      cleanUp();
      process.kill(process.pid, signal);
    };
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    process.once("exit", cleanUp);
    for (const signal of signals) process.once(signal, onSignal);
    return () => {
      process.off("exit", cleanUp);
      for (const signal of signals) process.off(signal, onSignal);
    };
  }

  /** Runs a command that must succeed; its stdout, trimmed. */
  async must(...args: string[]): Promise<string> {
    const outcome = await this.run(...args);
    if (outcome.code !== 0) {
      throw new Error(
        `${this.name} ${args.join(" ")} exited with ${outcome.code}:\n${outcome.stderr}${outcome.stdout}`,
      );
    }
    return outcome.stdout.trim();
  }

  /** Whatever the container wrote, stdout and stderr together. */
  async logs(container: string): Promise<string> {
    const { stdout, stderr } = await this.run("logs", container);
    return stdout + stderr;
  }

  /** The host address a published container port is reachable at: `http://127.0.0.1:<port>`. */
  async publishedUrl(container: string, port: number): Promise<string> {
    const mapping = await this.must("port", container, `${port}/tcp`);
    const hostPort = /:(\d+)\s*$/m.exec(mapping)?.[1];
    if (hostPort === undefined) throw new Error(`no host port for ${container}:${port} in "${mapping}"`);
    return `http://127.0.0.1:${hostPort}`;
  }

  /** Health as the engine reports it. Podman here has no systemd to time its checks, so they are run on demand. */
  async health(container: string): Promise<string> {
    if (this.name === "podman") await this.run("healthcheck", "run", container);
    return this.must("inspect", "--format", "{{.State.Health.Status}}", container);
  }

  async imageSize(image: string): Promise<number> {
    return Number(await this.must("image", "inspect", "--format", "{{.Size}}", image));
  }

  private async exists(image: string): Promise<boolean> {
    return (await this.run("image", "inspect", image)).code === 0;
  }

  /**
   * The Node base to build on: the official image when it is here or can be pulled, else a stand-in
   * of its shape that the script builds with debootstrap (said in one line), reused once built.
   */
  async nodeBaseImage(): Promise<string> {
    if ((await this.exists(OFFICIAL_NODE_IMAGE)) || (await this.run("pull", OFFICIAL_NODE_IMAGE)).code === 0) {
      return OFFICIAL_NODE_IMAGE;
    }
    if (await this.exists(STAND_IN_NODE_IMAGE)) return STAND_IN_NODE_IMAGE;
    console.warn(
      `container test: ${OFFICIAL_NODE_IMAGE} cannot be pulled; building the stand-in ${STAND_IN_NODE_IMAGE} ` +
        "(debootstrap, Node 26 from the npm registry), reused once built",
    );
    const built = await execute("bash", [STAND_IN_SCRIPT, this.name, STAND_IN_NODE_IMAGE]);
    if (built.code !== 0) throw new Error(`building the stand-in Node image failed:\n${built.stderr}${built.stdout}`);
    return STAND_IN_NODE_IMAGE;
  }

  /**
   * `docker build` of the repository as it is (the context filtered by .dockerignore), with this
   * machine's npm registry. Podman keeps HEALTHCHECK only in the Docker image format.
   */
  async build(tag: string, nodeImage: string, version: string): Promise<void> {
    const registry = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).stdout.trim();
    await this.must(
      "build",
      ...(this.name === "podman" ? ["--format", "docker"] : []),
      "--build-arg",
      `NODE_IMAGE=${nodeImage}`,
      ...(registry ? ["--build-arg", `NPM_CONFIG_REGISTRY=${registry}`] : []),
      "--build-arg",
      `VERSION=${version}`,
      "--tag",
      tag,
      REPOSITORY_ROOT,
    );
  }
}

/** Whether Podman runs a container here: an empty root file system gets as far as "not found" (127). */
function podmanRunsContainers(): string | undefined {
  const rootfs = mkdtempSync(join(tmpdir(), "plantstore-podman-probe-"));
  try {
    const probe = spawnSync("podman", ["run", "--rm", "--rootfs", rootfs, "/probe"], { encoding: "utf8" });
    return probe.status === 127 ? undefined : (probe.stderr.trim().split("\n").at(-1) ?? `exit ${probe.status}`);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
}

/** Docker when its daemon answers, else Podman when it can run a container; else skipped (or failed under CI). */
export function containerEngine(): Availability<Engine> {
  if (findOnPath("docker") && spawnSync("docker", ["version", "--format", "{{.Server.Version}}"]).status === 0) {
    return availability("container", { found: new Engine("docker") });
  }
  const hint =
    'install Podman (`apt-get install podman runc`) and set runtime = "runc" and default_ulimits = [] ' +
    "in /etc/containers/containers.conf (docs/testing.md), or start Docker";
  if (!findOnPath("podman")) return availability("container", { missing: "neither Docker nor Podman found", hint });
  const problem = podmanRunsContainers();
  return availability(
    "container",
    problem === undefined
      ? { found: new Engine("podman") }
      : { missing: `Podman cannot run containers here (${problem})`, hint },
  );
}

/**
 * One container test at a time on a machine, whoever starts it: the lock is a directory holding
 * its owner's pid, taken over when that process is gone.
 */
export async function holdMachineLock(name: string): Promise<() => void> {
  const directory = join(tmpdir(), `${name}.lock`);
  const owner = join(directory, "pid");
  const ownerAlive = () => {
    let pid: number;
    try {
      pid = Number(readFileSync(owner, "utf8"));
    } catch {
      // Taken a moment ago and its pid not yet written, or left so by a crash long ago.
      const taken = statSync(directory, { throwIfNoEntry: false });
      return taken !== undefined && Date.now() - taken.mtimeMs < 60_000;
    }
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await waitFor(
    `the ${name} lock`,
    () => {
      try {
        mkdirSync(directory);
        writeFileSync(owner, String(process.pid));
        return true;
      } catch {
        if (!ownerAlive()) rmSync(directory, { recursive: true, force: true });
        return false;
      }
    },
    { timeoutMs: 30 * 60_000, intervalMs: 1_000 },
  );
  return () => rmSync(directory, { recursive: true, force: true });
}
