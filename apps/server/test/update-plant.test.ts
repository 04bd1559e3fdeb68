import { ErrorCode } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../src/test-support/databases.js";
import { expectError } from "../src/test-support/expect-error.js";
import { exactJson, startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";

const READ_ONLY = "read-only-token-0123456789abcdef";
const TWO_53 = 2n ** 53n;

describe.each(testBackends())("editing plants (PUT /plants/{id}) on $name", (backend) => {
  let server: TestServer;
  /** Each test works in its own id range, so that tests do not see each other's plants. */
  let base = TWO_53;
  const nextId = () => (base += 1_000_003n);

  beforeAll(async () => {
    server = await startTestServer({
      databaseUrl: await backend.freshDatabaseUrl(),
      tokens: [TOKEN, `${READ_ONLY}:plants:read`],
    });
  });
  afterAll(async () => {
    await server?.close();
    await backend.cleanup();
  });

  /** The plant as GET answers it, with its ETag. */
  async function read(id: bigint): Promise<{ status: number; plant?: unknown; etag: string | null }> {
    const response = await server.call("GET", `/plants/${id}`);
    return {
      status: response.status,
      plant: response.status === 200 ? await exactJson(response) : undefined,
      etag: response.headers.get("etag"),
    };
  }

  describe("the edit", () => {
    it("replaces name and tag, answers the stored plant with its exact id and a new strong ETag, and GET agrees", async () => {
      const id = nextId();
      await server.create({ id, name: "Fern", tag: "indoor" });
      const before = await read(id);
      expect(before.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/); // strong: no W/

      const response = await server.put(id, { name: "Boston fern", tag: "shade" });
      expect(response.status).toBe(200);
      const etag = response.headers.get("etag");
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(etag).not.toBe(before.etag);
      expect(await response.clone().text()).toBe(`{"id":${id},"name":"Boston fern","tag":"shade"}`);
      expect(await read(id)).toEqual({ status: 200, plant: { id, name: "Boston fern", tag: "shade" }, etag });
    });

    it("is a full replacement: a body without tag removes the tag", async () => {
      const id = nextId();
      await server.create({ id, name: "Moss", tag: "green" });
      const response = await server.put(id, { name: "Moss" });
      expect(response.status).toBe(200);
      expect(await exactJson(response)).toEqual({ id, name: "Moss" });
      expect((await read(id)).plant).toEqual({ id, name: "Moss" });
    });

    it("answers a PUT that changes nothing with 200 and the same ETag, and repeating a PUT is safe", async () => {
      const id = nextId();
      await server.create({ id, name: "Ivy" });
      const { etag } = await read(id);
      for (let i = 0; i < 3; i++) {
        const same = await server.put(id, { name: "Ivy" });
        expect(same.status).toBe(200);
        expect(same.headers.get("etag")).toBe(etag);
      }
      const first = await server.put(id, { name: "Ivy", tag: "climber" });
      const again = await server.put(id, { name: "Ivy", tag: "climber" });
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    });

    it("answers an id no plant has with 404 PLANT_NOT_FOUND, and creates nothing (no upsert)", async () => {
      const id = nextId();
      await expectError(await server.put(id, { name: "Ghost" }), 404, ErrorCode.PLANT_NOT_FOUND, new RegExp(`${id}`));
      expect((await read(id)).status).toBe(404);
      // A deleted plant cannot be edited back into existence either.
      await server.create({ id, name: "Ghost" });
      expect((await server.call("DELETE", `/plants/${id}`)).status).toBe(204);
      await expectError(await server.put(id, { name: "Ghost" }), 404, ErrorCode.PLANT_NOT_FOUND);
    });

    it("makes a create compare with the plant as it is now: the old body is a 409, the current one a replay", async () => {
      const id = nextId();
      await server.create({ id, name: "Aloe", tag: "succulent" });
      expect((await server.put(id, { name: "Aloe vera" })).status).toBe(200);
      await expectError(await server.post({ id, name: "Aloe", tag: "succulent" }), 409, ErrorCode.ID_CONFLICT);
      const replay = await server.post({ id, name: "Aloe vera" });
      expect(replay.status).toBe(200);
      expect(replay.headers.get("plant-store-outcome")).toBe("replayed");
    });
  });

  describe("If-Match", () => {
    it("makes the change when it names the current ETag (or is *, or a list holding it)", async () => {
      const id = nextId();
      await server.create({ id, name: "Palm" });
      let { etag } = await read(id);
      const first = await server.put(id, { name: "Palm 2" }, { "if-match": etag! });
      expect(first.status).toBe(200);
      etag = first.headers.get("etag");
      const listed = await server.put(id, { name: "Palm 3" }, { "if-match": `"nope", ${etag}` });
      expect(listed.status).toBe(200);
      const any = await server.put(id, { name: "Palm 4" }, { "if-match": "*" });
      expect(any.status).toBe(200);
      expect((await read(id)).plant).toEqual({ id, name: "Palm 4" });
    });

    it("answers 412 PRECONDITION_FAILED and changes nothing when the ETag is stale, weak, or the plant is gone", async () => {
      const id = nextId();
      await server.create({ id, name: "Cactus" });
      const stale = (await read(id)).etag!;
      expect((await server.put(id, { name: "Cactus 2" })).status).toBe(200);
      const now = await read(id);

      await expectError(
        await server.put(id, { name: "Lost update" }, { "if-match": stale }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      // A weak tag never matches strongly (RFC 9110 §13.1.1), even the current one.
      await expectError(
        await server.put(id, { name: "Weak" }, { "if-match": `W/${now.etag}` }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      // The condition comes first: even a PUT that would change nothing is refused.
      await expectError(
        await server.put(id, { name: "Cactus 2" }, { "if-match": stale }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      await expectError(
        await server.call("DELETE", `/plants/${id}`, { "if-match": stale }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      expect(await read(id)).toEqual(now);

      // No plant: If-Match (even *) cannot hold.
      const missing = nextId();
      await expectError(
        await server.put(missing, { name: "x" }, { "if-match": "*" }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      await expectError(
        await server.call("DELETE", `/plants/${missing}`, { "if-match": "*" }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
    });

    it("deletes when it names the current ETag", async () => {
      const id = nextId();
      await server.create({ id, name: "Basil" });
      const { etag } = await read(id);
      expect((await server.call("DELETE", `/plants/${id}`, { "if-match": etag! })).status).toBe(204);
      expect((await read(id)).status).toBe(404);
    });

    it("refuses a malformed If-Match with 400 INVALID_PARAMETER naming it, before anything changes", async () => {
      const id = nextId();
      await server.create({ id, name: "Sage" });
      for (const value of ["abc", '"unterminated', '"a" "b"', `"${"a".repeat(2000)}"`]) {
        await expectError(
          await server.put(id, { name: "x" }, { "if-match": value }),
          400,
          ErrorCode.INVALID_PARAMETER,
          /^If-Match: /,
        );
        await expectError(
          await server.call("DELETE", `/plants/${id}`, { "if-match": value }),
          400,
          ErrorCode.INVALID_PARAMETER,
          /^If-Match: /,
        );
      }
      expect((await read(id)).plant).toEqual({ id, name: "Sage" });
    });

    it("of 10 concurrent PUTs carrying the same If-Match, exactly one wins; the others get 412", async () => {
      const id = nextId();
      await server.create({ id, name: "Contested" });
      const { etag } = await read(id);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) => server.put(id, { name: `Writer ${n}` }, { "if-match": etag! })),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(9);
      const winner = answers.find((answer) => answer.status === 200)!;
      expect((await read(id)).plant).toEqual(await exactJson(winner));
    });
  });

  // RFC 9110 §13.1.2: a PUT or DELETE with If-None-Match is made only while the plant is none of
  // the versions named (`*`: while no plant has the id). It was ignored: `*` overwrote the plant.
  describe("If-None-Match on PUT and DELETE", () => {
    it("answers 412 and changes nothing while the plant exists (*) or is a version named (weak comparison)", async () => {
      const id = nextId();
      await server.create({ id, name: "Ivy" });
      const now = await read(id);
      for (const condition of ["*", now.etag!, `W/${now.etag}`, `"other", ${now.etag}`]) {
        await expectError(
          await server.put(id, { name: "Overwritten" }, { "if-none-match": condition }),
          412,
          ErrorCode.PRECONDITION_FAILED,
        );
        await expectError(
          await server.call("DELETE", `/plants/${id}`, { "if-none-match": condition }),
          412,
          ErrorCode.PRECONDITION_FAILED,
        );
      }
      // Checked after If-Match: both must hold.
      await expectError(
        await server.put(id, { name: "Overwritten" }, { "if-match": now.etag!, "if-none-match": "*" }),
        412,
        ErrorCode.PRECONDITION_FAILED,
      );
      expect(await read(id)).toEqual(now);
    });

    it("makes the change when the plant is none of the versions named; with * and no plant, a 404 (a PUT never creates)", async () => {
      const id = nextId();
      await server.create({ id, name: "Thyme" });
      const before = await read(id);
      const edited = await server.put(id, { name: "Lemon thyme" }, { "if-none-match": '"not-its-etag"' });
      expect(edited.status).toBe(200);
      const etag = edited.headers.get("etag")!;
      expect(
        (await server.put(id, { name: "Thyme" }, { "if-match": etag, "if-none-match": before.etag! })).status,
      ).toBe(200);
      expect((await server.call("DELETE", `/plants/${id}`, { "if-none-match": etag })).status).toBe(204);
      expect((await read(id)).status).toBe(404);

      await expectError(
        await server.put(id, { name: "Thyme" }, { "if-none-match": "*" }),
        404,
        ErrorCode.PLANT_NOT_FOUND,
      );
      await expectError(
        await server.call("DELETE", `/plants/${id}`, { "if-none-match": "*" }),
        404,
        ErrorCode.PLANT_NOT_FOUND,
      );
      expect((await read(id)).status).toBe(404);
    });

    it("refuses a malformed If-None-Match with 400 INVALID_PARAMETER naming it", async () => {
      const id = nextId();
      await server.create({ id, name: "Mint" });
      await expectError(
        await server.put(id, { name: "x" }, { "if-none-match": "abc" }),
        400,
        ErrorCode.INVALID_PARAMETER,
        /^If-None-Match: /,
      );
      await expectError(
        await server.call("DELETE", `/plants/${id}`, { "if-none-match": "abc" }),
        400,
        ErrorCode.INVALID_PARAMETER,
        /^If-None-Match: /,
      );
      expect((await read(id)).plant).toEqual({ id, name: "Mint" });
    });
  });

  describe("If-None-Match on GET", () => {
    it("answers 304 with the ETag and no body while the client's copy is current, 200 once it is not", async () => {
      const id = nextId();
      await server.create({ id, name: "Orchid" });
      const { etag } = await read(id);
      for (const value of [etag!, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const response = await server.call("GET", `/plants/${id}`, { "if-none-match": value });
        expect(response.status, value).toBe(304);
        expect(response.headers.get("etag")).toBe(etag);
        expect(await response.text()).toBe("");
      }
      expect((await server.put(id, { name: "Orchid 2" })).status).toBe(200);
      const changed = await server.call("GET", `/plants/${id}`, { "if-none-match": etag! });
      expect(changed.status).toBe(200);
      expect(await exactJson(changed)).toEqual({ id, name: "Orchid 2" });
      await expectError(
        await server.call("GET", `/plants/${nextId()}`, { "if-none-match": "*" }),
        404,
        ErrorCode.PLANT_NOT_FOUND,
      );
      await expectError(
        await server.call("GET", `/plants/${id}`, { "if-none-match": "nope" }),
        400,
        ErrorCode.INVALID_PARAMETER,
        /^If-None-Match: /,
      );
    });
  });

  describe("the body and the gate", () => {
    it("applies the create's body rules, naming the field", async () => {
      const id = nextId();
      await server.create({ id, name: "Rule" });
      const cases: Array<[string, number, number, RegExp]> = [
        ['{"name":"x","color":"red"}', 400, ErrorCode.VALIDATION_FAILED, /^color: is not a field of PlantUpdate/],
        [`{"id":${id},"name":"x"}`, 400, ErrorCode.VALIDATION_FAILED, /^id: is not a field of PlantUpdate/],
        ['{"tag":"x"}', 400, ErrorCode.VALIDATION_FAILED, /^name: is required/],
        ['{"name":7}', 400, ErrorCode.VALIDATION_FAILED, /^name: must be a string/],
        ['{"name":"x","tag":null}', 400, ErrorCode.VALIDATION_FAILED, /^tag: /],
        [`{"name":"${"a".repeat(257)}"}`, 400, ErrorCode.VALIDATION_FAILED, /^name: must be at most 256 characters/],
        ["[]", 400, ErrorCode.VALIDATION_FAILED, /^body: must be a JSON object \(PlantUpdate\)/],
        ['{"name":', 400, ErrorCode.MALFORMED_JSON, /not valid JSON/],
        ["", 400, ErrorCode.EMPTY_BODY, /empty/],
        [`{"name":"${"a".repeat(20_000)}"}`, 413, ErrorCode.BODY_TOO_LARGE, /at most 16384 bytes/],
      ];
      for (const [body, status, code, message] of cases) {
        await expectError(await server.put(id, body), status, code, message);
      }
      await expectError(
        await server.put(id, '{"name":"x"}', { "content-type": "text/plain" }),
        415,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      );
      await expectError(await server.put("abc", { name: "x" }), 400, ErrorCode.INVALID_PARAMETER, /^id: /);
      expect((await read(id)).plant).toEqual({ id, name: "Rule" });
    });

    it("needs a token with plants:write, checked before the body is read", async () => {
      const id = nextId();
      await server.create({ id, name: "Guarded" });
      await expectError(await server.put(id, { name: "x" }, { authorization: "" }), 401, ErrorCode.MISSING_CREDENTIAL);
      // A read-only token is refused with 403 even with a body that would be a 415: the body is never read.
      const refused = await server.put(id, "not json", {
        authorization: `Bearer ${READ_ONLY}`,
        "content-type": "text/plain",
      });
      await expectError(refused, 403, ErrorCode.INSUFFICIENT_SCOPE);
      expect(refused.headers.get("www-authenticate")).toContain('scope="plants:write"');
      expect((await read(id)).plant).toEqual({ id, name: "Guarded" });
    });
  });
});
