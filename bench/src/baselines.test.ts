import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { postPlant } from "./probe.js";
import { stopProcess } from "./processes.js";
import { startTarget, type RunningTarget } from "./target-process.js";
import { targetSpecs } from "./targets.js";

// The built baselines (dist/, made by the build this test depends on), started as the bench starts them.
const workDir = mkdtempSync(join(tmpdir(), "bench-baselines-test-"));
const started: RunningTarget[] = [];
const token = "baseline-test-token-0123456789abcdef";

afterAll(async () => {
  await Promise.all(started.map((target) => stopProcess(target.child, 2000)));
  rmSync(workDir, { recursive: true, force: true });
});

async function start(name: string): Promise<string> {
  const spec = targetSpecs.find((candidate) => candidate.name === name);
  if (spec === undefined) throw new Error(`no target ${name}`);
  const target = await startTarget(spec, { workDir, token, cpu: undefined });
  started.push(target);
  return target.url;
}

const fern = '{"id":7,"name":"Fern","tag":"indoor"}';

describe.each(["bare", "naive", "fastify-durable"])("the %s baseline", (name) => {
  it("creates, replays, refuses a conflict, a wrong token and an invalid body", async () => {
    const url = await start(name);
    const created = await postPlant(url, token, fern);
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text)).toEqual({ name: "Fern", tag: "indoor" });
    expect((await postPlant(url, token, fern)).status).toBe(200);
    const conflict = await postPlant(url, token, '{"id":7,"name":"Ficus"}');
    expect(conflict.status).toBe(409);
    expect(JSON.parse(conflict.text)).toMatchObject({ error: 40901 });
    expect((await postPlant(url, "nope", fern)).status).toBe(401);
    expect((await postPlant(url, token, '{"id":8,"name":""}')).status).toBe(400);
  });
});

describe("the express-floor baseline", () => {
  it("answers every POST /plants with the same 200 body, reading nothing", async () => {
    const url = await start("express-floor");
    const answer = await postPlant(url, "anything", '{"id":1,"name":"Ignored"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ name: "Monstera deliciosa", tag: "indoor" });
  });
});
