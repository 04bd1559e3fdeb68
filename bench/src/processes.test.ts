import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { startCoreMeter } from "./processes.js";

// Reads /proc and pins with taskset, as the bench itself does (Linux only, like the bench).
describe.runIf(process.platform === "linux")("startCoreMeter", () => {
  it("counts what another process did on the watched core, and not the watched process", async () => {
    const meter = startCoreMeter(0, process.pid);
    // A neighbour pinned to core 0 that burns 300 ms of CPU time (its own clock, not the wall's).
    const burn = "const s = process.cpuUsage(); while (process.cpuUsage(s).user < 300_000);";
    const child = spawn("taskset", ["-c", "0", process.execPath, "-e", burn], { stdio: "ignore" });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    const used = meter();
    expect(used).toBeDefined();
    // /proc counts in 10 ms ticks; node's own start-up adds to the 300 ms.
    expect(used!.othersMs).toBeGreaterThanOrEqual(250);
    expect(used!.stealMs).toBeGreaterThanOrEqual(0);
  });
});
