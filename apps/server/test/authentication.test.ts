import { ErrorCode } from "@plantstore/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteBackend } from "../src/test-support/databases.js";
import { startTestServer, TOKEN, type TestServer } from "../src/test-support/test-server.js";
import { waitFor } from "../src/test-support/wait-for.js";

const backend = sqliteBackend();
let server: TestServer;
let id = 1;

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: await backend.freshDatabaseUrl() });
});
afterAll(async () => {
  await server?.close();
  await backend.cleanup();
});

function post(headers: Record<string, string>, body = `{"id":${id++},"name":"Fern"}`, path = "/plants") {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

async function expect401(response: Response, code: number, challenge: string) {
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toBe(challenge);
  expect(await response.json()).toEqual({ error: code, message: expect.any(String) });
}

const REALM = 'Bearer realm="plantstore"';

describe("bearer authentication", () => {
  it("accepts the token, with the scheme in any case", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect((await post({ authorization: `${scheme} ${TOKEN}` })).status).toBe(200);
    }
  });

  it("refuses a missing credential", async () => {
    await expect401(await post({}), ErrorCode.MISSING_CREDENTIAL, REALM);
  });

  it("refuses another scheme (Basic) as a missing bearer credential", async () => {
    const basic = Buffer.from(`user:${TOKEN}`).toString("base64");
    await expect401(await post({ authorization: `Basic ${basic}` }), ErrorCode.MISSING_CREDENTIAL, REALM);
  });

  it.each([
    ["a wrong token", "Bearer wrong-token-0123456789"],
    ["a prefix of the valid token", `Bearer ${TOKEN.slice(0, -1)}`],
    ["the valid token with a suffix", `Bearer ${TOKEN}x`],
  ])("refuses %s as invalid_token", async (_label, authorization) => {
    await expect401(await post({ authorization }), ErrorCode.INVALID_CREDENTIAL, `${REALM}, error="invalid_token"`);
  });

  it.each([
    ["no token", "Bearer"],
    ["two tokens", `Bearer ${TOKEN} ${TOKEN}`],
    ["a token with a comma", "Bearer abc,def"],
  ])("refuses a malformed header (%s) as invalid_request", async (_label, authorization) => {
    await expect401(await post({ authorization }), ErrorCode.MALFORMED_CREDENTIAL, `${REALM}, error="invalid_request"`);
  });

  it("does not accept the token in the query string or the body", async () => {
    await expect401(await post({}, undefined, `/plants?access_token=${TOKEN}`), ErrorCode.MISSING_CREDENTIAL, REALM);
    const form = `access_token=${TOKEN}`;
    await expect401(
      await post({ "content-type": "application/x-www-form-urlencoded" }, form),
      ErrorCode.MISSING_CREDENTIAL,
      REALM,
    );
  });

  it("answers an unauthenticated bad body with 401, never revealing validation", async () => {
    for (const body of ["{", '{"id":"x"}', "[]", ""]) {
      await expect401(
        await post({ authorization: "Bearer nope-nope-nope-nope" }, body),
        ErrorCode.INVALID_CREDENTIAL,
        `${REALM}, error="invalid_token"`,
      );
      await expect401(await post({}, body), ErrorCode.MISSING_CREDENTIAL, REALM);
    }
  });

  it("refuses the same way before Express (POST /plants) and inside it (other spellings of the path)", async () => {
    for (const path of ["/plants", "/plants?x=1", "/plants/", "/PLANTS"]) {
      const response = await post({ "x-request-id": "gate-check" }, undefined, path);
      await expect401(response, ErrorCode.MISSING_CREDENTIAL, REALM);
      expect(response.headers.get("x-request-id")).toBe("gate-check");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect((await post({ authorization: `Bearer ${TOKEN}` }, undefined, "/plants/")).status).toBe(200);
  });

  it("stores no plant for a refused request", async () => {
    const before = await server.storage.plants.count();
    await post({ authorization: "Bearer nope-nope-nope-nope" }, '{"id":424242,"name":"x"}');
    expect(await server.storage.plants.count()).toBe(before);
  });

  it("accepts a token created in the database, and refuses it once revoked", async () => {
    const { hashToken } = await import("../src/tokens/token-hash.js");
    const token = "db-token-abcdefghijklmnop";
    const info = await server.storage.tokens.add(hashToken(token), "test", ["plants:write"]);
    // A new token is seen within the refresh interval (1 s); misses re-read the table at most 4×/s.
    await waitFor(
      "the new token to be accepted",
      async () => (await post({ authorization: `Bearer ${token}` })).status === 200,
    );
    await server.storage.tokens.revoke(info.id);
    // Revocation is seen within the refresh interval (1 s).
    await waitFor(
      "the revoked token to be refused",
      async () => (await post({ authorization: `Bearer ${token}` })).status === 401,
    );
    await expect401(
      await post({ authorization: `Bearer ${token}` }),
      ErrorCode.INVALID_CREDENTIAL,
      `${REALM}, error="invalid_token"`,
    );
  });
});
