import { parseExactJson } from "@plantstore/contract";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, type CliProcess } from "../test-support/run-cli.js";
import { TEST_TOKEN, useTestServer } from "../test-support/test-server.js";
import { waitFor } from "../test-support/wait-for.js";

const context = useTestServer();
const running: CliProcess[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    await cli.finished;
  }
});

const call = (method: string, path: string, body?: string) =>
  fetch(`${context.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
    body,
  });

function watch(...args: string[]): { cli: CliProcess; stdout: () => string } {
  let stdout = "";
  const cli = spawnCli(["watch", ...args], context.env());
  cli.child.stdout?.on("data", (chunk: string) => (stdout += chunk));
  running.push(cli);
  return { cli, stdout: () => stdout };
}

describe("plantstore watch", () => {
  it("prints each change with its cursor, in commit order; Ctrl-C ends it with 0 and the cursor to resume from", async () => {
    const id = "9007199254740993";
    const { cli, stdout } = watch("--after", "0");
    expect((await call("POST", "/plants", `{"id":${id},"name":"Monstera","tag":"indoor"}`)).status).toBe(200);
    expect((await call("PUT", `/plants/${id}`, '{"name":"Monstera deliciosa"}')).status).toBe(200);
    expect((await call("DELETE", `/plants/${id}`)).status).toBe(204);
    await waitFor(() => stdout().split("\n").length > 3, 30_000);
    const lines = stdout().split("\n").slice(0, -1);
    expect(lines).toEqual([
      `1\tcreated\t${id}\tMonstera\tindoor`,
      `2\tupdated\t${id}\tMonstera deliciosa\t`,
      `3\tdeleted\t${id}\tMonstera deliciosa\t`,
    ]);
    cli.child.kill("SIGINT");
    const run = await cli.finished;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("resume with --after 3");

    // --jsonl, from a cursor: the changes after it, ids exact.
    const json = watch("--after", "1", "--jsonl");
    await waitFor(() => json.stdout().split("\n").length > 2, 30_000);
    const changes = json
      .stdout()
      .trim()
      .split("\n")
      .map((line) => parseExactJson(line));
    expect(changes).toMatchObject([
      { kind: "updated", cursor: "2", plant: { id: 2n ** 53n + 1n, name: "Monstera deliciosa" } },
      { kind: "deleted", cursor: "3" },
    ]);
  });

  it("refuses a malformed cursor with exit code 2, and a refused token with 1", async () => {
    expect((await runCli(["watch", "--after", "x"], context.env())).code).toBe(2);
    const refused = await runCli(["watch"], { ...context.env(), PLANTSTORE_TOKEN: "y".repeat(40) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("could not watch the changes");
  });
});
