// `pnpm bench` and `pnpm bench:smoke` start here, before building anything: without wrk they stop with
// one line saying how to get it, and exit code 1. (dist/run.js checks again when run on its own; the
// message is WRK_MISSING in src/wrk.ts.)
import { spawnSync } from "node:child_process";

const probe = spawnSync("wrk", ["--version"], { stdio: "ignore" });
// wrk --version exits 1 after printing its version: only a missing binary means no wrk.
if (probe.error?.code === "ENOENT") {
  console.error("bench: wrk not found: install it with `apt-get install wrk` (Debian/Ubuntu) and run again");
  process.exit(1);
}
