// The container test's tools: which engine runs containers here (Docker or Podman), the Node base
// image to build on, the image build, and the commands the test gives the engine.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { availability, findOnPath, type Availability } from "@plantstore/vitest-config/optional";
import { waitFor } from "./wait-for.js";

export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The base the Dockerfile names by default, and the stand-in built where it cannot be pulled. */
// Fully qualified: Podman would match a bare "node:…" to any local image whose name ends so.
export const OFFICIAL_NODE_IMAGE = "docker.io/library/node:24-bookworm-slim";
export const STAND_IN_NODE_IMAGE = "localhost/plantstore-stand-in/node:24-bookworm-slim";
const STAND_IN_SCRIPT = join(REPOSITORY_ROOT, "tooling/scripts/stand-in-node-image.sh");

export type EngineName = "docker" | "podman";

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, collecting its output; never rejects for a non-zero exit. */
export function execute(program: string, args: string[], { input }: { input?: string } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The engine's commands, as the test gives them. */
export class Engine {
  constructor(readonly name: EngineName) {}

  run(...args: string[]): Promise<Outcome> {
    return execute(this.name, args);
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
        "(debootstrap, Node 24 from the npm registry), reused once built",
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
