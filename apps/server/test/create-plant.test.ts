import { ErrorCode } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { expectError } from "../src/test-support/expect-error.js";
import { startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";

const TWO_53 = 2n ** 53n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

let nextId = 1_000_000n;
const freshId = () => nextId++;

describe.each(testBackends())("POST /plants on $name", (backend) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  describe("creates", () => {
    it("answers 200 with the Plant (no id) and stores it", async () => {
      const id = freshId();
      const response = await server.post({ id, name: "Monstera", tag: "indoor" });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ name: "Monstera", tag: "indoor" });
      expect(response.headers.get("plant-store-outcome")).toBe("created");
      expect(await server.storage.plants.find(id)).toEqual({ id, name: "Monstera", tag: "indoor" });
    });

    it("omits the tag when none was sent", async () => {
      const response = await server.post({ id: freshId(), name: "Fern" });
      expect(await response.json()).toEqual({ name: "Fern" });
    });

    it("keeps 2^53 and 2^53+1 apart: two plants", async () => {
      const a = await server.post(`{"id": ${TWO_53}, "name": "a"}`);
      const b = await server.post(`{"id": ${TWO_53 + 1n}, "name": "b"}`);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.headers.get("plant-store-outcome")).toBe("created");
      expect((await server.storage.plants.find(TWO_53))?.name).toBe("a");
      expect((await server.storage.plants.find(TWO_53 + 1n))?.name).toBe("b");
    });

    it.each([
      ["2^63-1", INT64_MAX],
      ["-2^63", INT64_MIN],
      ["0", 0n],
    ])("accepts id %s exactly", async (_label, id) => {
      const response = await server.post(`{"id":${id},"name":"edge ${id}"}`);
      expect(response.status).toBe(200);
      expect(await server.storage.plants.find(id)).toEqual({ id, name: `edge ${id}` });
    });

    it("accepts an integer written with a fraction or exponent (5.0, 1E2), up to 64 characters", async () => {
      const base = freshId() * 1000n;
      expect((await server.post(`{"id":${base}.000,"name":"x"}`)).status).toBe(200);
      expect(await server.storage.plants.find(base)).toBeDefined();
      const long = `${base + 1n}.${"0".repeat(63 - String(base).length)}`;
      expect(long).toHaveLength(64);
      expect((await server.post(`{"id":${long},"name":"x"}`)).status).toBe(200);
      expect(await server.storage.plants.find(base + 1n)).toBeDefined();
    });

    it("accepts the longest name and tag, counted in characters", async () => {
      const response = await server.post({ id: freshId(), name: "🌿".repeat(256), tag: "t".repeat(64) });
      expect(response.status).toBe(200);
    });

    it("ignores a UTF-8 byte order mark", async () => {
      const response = await server.post(`\uFEFF{"id":${freshId()},"name":"BOM"}`);
      expect(response.status).toBe(200);
    });

    it("accepts charset=utf-8 and a body with escapes", async () => {
      const response = await server.post(`{"id":${freshId()},"name":"Fic\\u00fcs \\ud83c\\udf3f"}`, {
        "content-type": "application/json; charset=UTF-8",
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ name: "Ficüs 🌿" });
    });
  });

  describe("replays and conflicts", () => {
    it("answers an identical create again with 200 and the same body", async () => {
      const body = { id: freshId(), name: "Aloe", tag: "succulent" };
      const first = await server.post(body);
      const second = await server.post(body);
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual(await first.json());
      expect(second.headers.get("plant-store-outcome")).toBe("replayed");
    });

    it("answers a different body for an existing id with 409 and keeps the original", async () => {
      const id = freshId();
      await server.post({ id, name: "Aloe", tag: "succulent" });
      for (const other of [{ name: "Cactus", tag: "succulent" }, { name: "Aloe" }, { name: "Aloe", tag: "x" }]) {
        await expectError(await server.post({ id, ...other }), 409, ErrorCode.ID_CONFLICT, new RegExp(`${id}`));
      }
      const replay = await server.post({ id, name: "Aloe", tag: "succulent" });
      expect(replay.status).toBe(200);
      expect(await server.storage.plants.find(id)).toEqual({ id, name: "Aloe", tag: "succulent" });
    });

    it("with 50 concurrent creates of one id and different names: exactly one 200, 49 × 409", async () => {
      const id = freshId();
      const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => server.post({ id, name: `name ${i}` })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
      const winner = responses.find((r) => r.status === 200)!;
      expect((await server.storage.plants.find(id))?.name).toBe(((await winner.json()) as { name: string }).name);
    });

    it("with 50 identical concurrent creates: all 200, one created", async () => {
      const id = freshId();
      const responses = await Promise.all(Array.from({ length: 50 }, () => server.post({ id, name: "Same" })));
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      const outcomes = responses.map((r) => r.headers.get("plant-store-outcome"));
      expect(outcomes.filter((o) => o === "created")).toHaveLength(1);
    });
  });

  describe("refuses bad bodies with a JSON Error", () => {
    it.each([
      ["malformed JSON", '{"id": 1, "name": ', 400, ErrorCode.MALFORMED_JSON, /not valid JSON/],
      ["a trailing comma", '{"id": 1, "name": "a",}', 400, ErrorCode.MALFORMED_JSON, /JSON/],
      [
        "a repeated member",
        '{"id":1,"name":"a","id":2}',
        400,
        ErrorCode.MALFORMED_JSON,
        /^the body is not valid JSON: the member "id" appears twice in one object \(at position 19\)$/,
      ],
      [
        "nesting 16 KB deep",
        `${"[".repeat(8192)}${"]".repeat(8192)}`,
        400,
        ErrorCode.MALFORMED_JSON,
        /^the body is not valid JSON: nested deeper than 64 levels at position 64$/,
      ],
      [
        "an id written in 65 characters",
        `{"id":1.${"0".repeat(63)},"name":"a"}`,
        400,
        ErrorCode.MALFORMED_JSON,
        /^the body is not valid JSON: the number of member "id" at position 6 is 65 characters long; an id is at most 64$/,
      ],
      ["whitespace only", "   ", 400, ErrorCode.EMPTY_BODY, /required/],
      ["an array", "[]", 400, ErrorCode.VALIDATION_FAILED, /body: must be a JSON object/],
      ["null", "null", 400, ErrorCode.VALIDATION_FAILED, /body: must be a JSON object/],
      ["a string", '"Fern"', 400, ErrorCode.VALIDATION_FAILED, /body: must be a JSON object/],
      ["a number", "7", 400, ErrorCode.VALIDATION_FAILED, /body: must be a JSON object/],
      ["no id", '{"name":"a"}', 400, ErrorCode.VALIDATION_FAILED, /^id: is required$/],
      ["no name", '{"id":1}', 400, ErrorCode.VALIDATION_FAILED, /^name: is required$/],
      ["id 1.5", '{"id":1.5,"name":"a"}', 400, ErrorCode.VALIDATION_FAILED, /^id: must be an integer$/],
      [
        "id 1.0000000000000001",
        '{"id":1.0000000000000001,"name":"a"}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^id: must be an integer$/,
      ],
      ['id "5"', '{"id":"5","name":"a"}', 400, ErrorCode.VALIDATION_FAILED, /^id: must be an integer, not a string$/],
      [
        "id true",
        '{"id":true,"name":"a"}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^id: must be an integer, not a boolean$/,
      ],
      ["id null", '{"id":null,"name":"a"}', 400, ErrorCode.VALIDATION_FAILED, /^id: must be an integer, not null$/],
      ["id 2^63", `{"id":${2n ** 63n},"name":"a"}`, 400, ErrorCode.VALIDATION_FAILED, /^id: must be between/],
      ["id -2^63-1", `{"id":${INT64_MIN - 1n},"name":"a"}`, 400, ErrorCode.VALIDATION_FAILED, /^id: must be between/],
      ["id 1e400", '{"id":1e400,"name":"a"}', 400, ErrorCode.VALIDATION_FAILED, /^id: must be between/],
      ["name 5", '{"id":1,"name":5}', 400, ErrorCode.VALIDATION_FAILED, /^name: must be a string$/],
      ["name empty", '{"id":1,"name":""}', 400, ErrorCode.VALIDATION_FAILED, /^name: must not be empty$/],
      [
        "name too long",
        `{"id":1,"name":"${"a".repeat(257)}"}`,
        400,
        ErrorCode.VALIDATION_FAILED,
        /^name: must be at most 256/,
      ],
      [
        "name with NUL",
        '{"id":1,"name":"a\\u0000b"}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^name: must not contain control/,
      ],
      [
        "name with a lone surrogate",
        '{"id":1,"name":"a\\ud800"}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^name: must be well-formed/,
      ],
      ["tag null", '{"id":1,"name":"a","tag":null}', 400, ErrorCode.VALIDATION_FAILED, /^tag: must be a string$/],
      ["tag 3", '{"id":1,"name":"a","tag":3}', 400, ErrorCode.VALIDATION_FAILED, /^tag: must be a string$/],
      [
        "tag too long",
        `{"id":1,"name":"a","tag":"${"t".repeat(65)}"}`,
        400,
        ErrorCode.VALIDATION_FAILED,
        /^tag: must be at most 64/,
      ],
      [
        "an unknown field",
        '{"id":1,"name":"a","color":"green"}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^color: is not a field/,
      ],
      [
        "__proto__",
        '{"id":1,"name":"a","__proto__":{"x":1}}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^__proto__: is not a field/,
      ],
      [
        "constructor",
        '{"id":1,"name":"a","constructor":1}',
        400,
        ErrorCode.VALIDATION_FAILED,
        /^constructor: is not a field/,
      ],
    ])("%s", async (_label, body, status, code, message) => {
      await expectError(await server.post(body), status, code, message);
    });

    it("names every failing field at once", async () => {
      const body = await expectError(await server.post('{"id":"x","tag":""}'), 400, ErrorCode.VALIDATION_FAILED);
      expect(body.message).toBe("id: must be an integer, not a string; name: is required; tag: must not be empty");
    });

    it("refuses invalid UTF-8", async () => {
      const bytes = Buffer.concat([Buffer.from('{"id":1,"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      const response = await fetch(`${server.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: bytes,
      });
      await expectError(response, 400, ErrorCode.MALFORMED_JSON, /UTF-8/);
    });

    it("refuses an empty body", async () => {
      await expectError(await server.post(""), 400, ErrorCode.EMPTY_BODY);
    });

    it.each([
      ["text/plain", "text/plain"],
      ["form", "application/x-www-form-urlencoded"],
      ["latin-1 JSON", "application/json; charset=latin1"],
    ])("refuses a %s body with 415", async (_label, type) => {
      await expectError(
        await server.post('{"id":1,"name":"a"}', { "content-type": type }),
        415,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      );
    });

    it("refuses a body without Content-Type with 415", async () => {
      const response = await fetch(`${server.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: new Uint8Array(Buffer.from('{"id":1,"name":"a"}')),
      });
      await expectError(response, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE);
    });

    it("refuses a content-encoded body with 415", async () => {
      await expectError(
        await server.post('{"id":1,"name":"a"}', { "content-encoding": "gzip" }),
        415,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      );
    });

    it("refuses an oversized body with 413, declared or streamed", async () => {
      const big = `{"id":1,"name":"${"a".repeat(20_000)}"}`;
      await expectError(await server.post(big), 413, ErrorCode.BODY_TOO_LARGE);
      // Chunked: no Content-Length, so the limit is enforced while streaming.
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode("a".repeat(1000)));
          controller.close();
        },
      });
      const response = await fetch(`${server.url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      await expectError(response, 413, ErrorCode.BODY_TOO_LARGE);
    });
  });
});
