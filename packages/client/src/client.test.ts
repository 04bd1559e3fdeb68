import { ErrorCode } from "@plantstore/contract";
import { describe, expect, it } from "vitest";
import { startFlakyProxy, type FlakyProxy, type ProxyFault } from "./testing.js";
import { clientFor, failureOf, fastRetry, useTestServer, withProxy as withProxyTo } from "./test-support/harness.js";
import { TEST_TOKEN } from "./test-support/test-server.js";

const context = useTestServer();
let nextId = 1_000;
/** A fresh id per test, so tests do not depend on one another. */
const freshId = () => nextId++;

function withProxy<T>(faults: ProxyFault[], run: (url: string, proxy: FlakyProxy) => Promise<T>): Promise<T> {
  return withProxyTo(context.server.url, faults, run);
}

describe("createPlant against the real server", () => {
  it("creates a plant with a number id and answers the Plant without an id", async () => {
    const result = await clientFor(context.server.url).createPlant({ id: freshId(), name: "Fern", tag: "indoor" });
    expect(result).toEqual({ plant: { name: "Fern", tag: "indoor" }, outcome: "created", attempts: 1 });
  });

  it("keeps bigint ids above 2^53 exact: 2^53 and 2^53+1 are two plants", async () => {
    const client = clientFor(context.server.url);
    const above = await client.createPlant({ id: 2n ** 53n + 1n, name: "Odd" });
    const below = await client.createPlant({ id: 2n ** 53n, name: "Even" });
    expect([above.outcome, below.outcome]).toEqual(["created", "created"]);
    // Had either id been rounded, one of these would be a conflict.
    expect((await client.createPlant({ id: 2n ** 53n + 1n, name: "Odd" })).outcome).toBe("replayed");
    expect((await client.createPlant({ id: 2n ** 53n, name: "Even" })).outcome).toBe("replayed");
  });

  it("accepts the int64 extremes", async () => {
    const client = clientFor(context.server.url);
    expect((await client.createPlant({ id: 2n ** 63n - 1n, name: "Max" })).plant).toEqual({ name: "Max" });
    expect((await client.createPlant({ id: -(2n ** 63n), name: "Min" })).plant).toEqual({ name: "Min" });
  });

  it("reports an identical repeat as replayed", async () => {
    const client = clientFor(context.server.url);
    const id = freshId();
    await client.createPlant({ id, name: "Ivy" });
    const again = await client.createPlant({ id, name: "Ivy" });
    expect(again).toEqual({ plant: { name: "Ivy" }, outcome: "replayed", attempts: 1 });
  });

  it("surfaces 409 as a conflict, without retrying", async () => {
    const client = clientFor(context.server.url);
    const id = freshId();
    await client.createPlant({ id, name: "Ivy" });
    const error = await failureOf(client.createPlant({ id, name: "Not Ivy" }));
    expect(error).toMatchObject({ kind: "http", status: 409, code: ErrorCode.ID_CONFLICT, codeName: "ID_CONFLICT" });
    expect(error.attempts).toBe(1);
    expect([error.isConflict(), error.isInvalidInput(), error.isAuthError(), error.isTransient()]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("surfaces 400 as invalid input naming the field, without retrying", async () => {
    const error = await failureOf(clientFor(context.server.url).createPlant({ id: freshId(), name: "" }));
    expect(error).toMatchObject({ kind: "http", status: 400, code: ErrorCode.VALIDATION_FAILED, attempts: 1 });
    expect(error.detail).toContain("name");
    expect([error.isInvalidInput(), error.isConflict(), error.isAuthError()]).toEqual([true, false, false]);
  });

  it("sends unknown fields rather than dropping them, so the server refuses them", async () => {
    const body = { id: freshId(), name: "Fern", color: "green" } as unknown as { id: number; name: string };
    const error = await failureOf(clientFor(context.server.url).createPlant(body));
    expect(error).toMatchObject({ status: 400, code: ErrorCode.VALIDATION_FAILED });
    expect(error.detail).toContain("color");
  });

  it("surfaces 401 as an auth error and never puts the token in the error", async () => {
    const secret = "s3cret-token-value";
    const error = await failureOf(
      clientFor(context.server.url, { token: secret }).createPlant({ id: freshId(), name: "Fern" }),
    );
    expect(error).toMatchObject({ kind: "http", status: 401, code: ErrorCode.INVALID_CREDENTIAL, attempts: 1 });
    expect(error.isAuthError()).toBe(true);
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(secret);
  });

  it("refuses a bad configuration at once", () => {
    expect(() => clientFor("not a url")).toThrow("baseUrl is not a valid URL");
    expect(() => clientFor("ftp://127.0.0.1")).toThrow("baseUrl must be an http or https URL");
    expect(() => clientFor("http://user:secret@127.0.0.1")).toThrow("baseUrl must not contain credentials");
    expect(() => clientFor(context.server.url, { timeoutMs: 0 })).toThrow("timeoutMs must be a positive number");
  });

  it("refuses a number id beyond 2^53 before sending", async () => {
    const error = await failureOf(clientFor(context.server.url).createPlant({ id: 2 ** 53 + 2, name: "Fern" }));
    expect(error).toMatchObject({ kind: "invalid-request", attempts: 0 });
    expect(error.message).toContain("bigint");
    expect(error.isInvalidInput()).toBe(true);
  });
});

describe("retries over a flaky network", () => {
  it("retries a dropped connection and ends in 200", async () => {
    await withProxy([{ kind: "drop" }], async (url) => {
      const result = await clientFor(url).createPlant({ id: freshId(), name: "Fern" });
      expect(result).toEqual({ plant: { name: "Fern" }, outcome: "created", attempts: 2 });
    });
  });

  it("retries a 503 once and ends in 200", async () => {
    await withProxy([{ kind: "status-503", retryAfter: "0" }], async (url) => {
      const result = await clientFor(url).createPlant({ id: freshId(), name: "Fern" });
      expect(result).toEqual({ plant: { name: "Fern" }, outcome: "created", attempts: 2 });
    });
  });

  it("after a lost answer, the retry is a replay of its own create and says the outcome is unknown", async () => {
    const id = freshId();
    await withProxy([{ kind: "lose-answer" }], async (url) => {
      const result = await clientFor(url).createPlant({ id, name: "Fern" });
      expect(result).toEqual({ plant: { name: "Fern" }, outcome: "unknown", attempts: 2 });
    });
    // The first attempt stored it: the same id with another name is now a genuine conflict.
    const error = await failureOf(clientFor(context.server.url).createPlant({ id, name: "Other" }));
    expect(error.isConflict()).toBe(true);
  });

  it("after OUTCOME_UNKNOWN, the retry's replay may be its own create: the outcome is unknown", async () => {
    const id = freshId();
    const outcomeUnknown: ProxyFault = {
      kind: "replace-answer",
      status: 503,
      headers: { "Content-Type": "application/json", "Retry-After": "0" },
      body: JSON.stringify({ error: ErrorCode.OUTCOME_UNKNOWN, message: "storage failed while committing" }),
    };
    await withProxy([outcomeUnknown], async (url) => {
      const result = await clientFor(url).createPlant({ id, name: "Fern" });
      expect(result).toEqual({ plant: { name: "Fern" }, outcome: "unknown", attempts: 2 });
    });
    await withProxy([outcomeUnknown], async (url) => {
      const error = await failureOf(clientFor(url, { retry: false }).createPlant({ id: freshId(), name: "Fern" }));
      expect(error).toMatchObject({ codeName: "OUTCOME_UNKNOWN", mayHaveActed: true });
    });
  });

  it("honours Retry-After on 429, capped by maxRetryAfterMs", async () => {
    // The server asks for an hour; the cap makes it 300 ms. Only the lower bound is asserted (a
    // timer never fires early); were the cap ignored, the test would run into its own time limit.
    await withProxy([{ kind: "status-429", retryAfter: "3600" }], async (url) => {
      const started = performance.now();
      const client = clientFor(url, { retry: { ...fastRetry, maxRetryAfterMs: 300 } });
      const result = await client.createPlant({ id: freshId(), name: "Fern" });
      expect(result.attempts).toBe(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });
  }, 60_000);

  it("tells the wait a refused 429 asked for (Retry-After), for a caller that does not retry", async () => {
    await withProxy([{ kind: "status-429", retryAfter: "42" }], async (url) => {
      const error = await failureOf(clientFor(url, { retry: false }).createPlant({ id: freshId(), name: "Fern" }));
      expect(error).toMatchObject({ status: 429, retryAfterMs: 42_000, attempts: 1 });
    });
  });

  it("gives up after the configured retries with the last failure", async () => {
    await withProxy([{ kind: "status-503" }, { kind: "status-503" }, { kind: "status-503" }], async (url) => {
      const error = await failureOf(
        clientFor(url, { retry: { ...fastRetry, retries: 2 } }).createPlant({ id: freshId(), name: "Fern" }),
      );
      expect(error).toMatchObject({ kind: "http", status: 503, attempts: 3 });
      expect(error.isTransient()).toBe(true);
    });
  });

  it("reports an unreachable server as a network error after retrying", async () => {
    const proxy = await startFlakyProxy(context.server.url, []);
    const deadUrl = proxy.url;
    await proxy.close();
    const error = await failureOf(
      clientFor(deadUrl, { retry: { ...fastRetry, retries: 2 } }).createPlant({ id: freshId(), name: "Fern" }),
    );
    expect(error).toMatchObject({ kind: "network", attempts: 3 });
    expect(error.message).toContain(deadUrl);
    expect(error.message).not.toContain(TEST_TOKEN);
  });
});

describe("with a caller's fetch instead of node:http", () => {
  it("creates, reports conflicts and retries a dropped connection the same way", async () => {
    const calls: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    await withProxy([{ kind: "drop" }], async (url) => {
      const client = clientFor(url, { fetch: countingFetch });
      const id = 2n ** 62n + BigInt(freshId());
      expect(await client.createPlant({ id, name: "Fern" })).toEqual({
        plant: { name: "Fern" },
        outcome: "created",
        attempts: 2,
      });
      const error = await failureOf(client.createPlant({ id, name: "Ivy" }));
      expect(error).toMatchObject({ status: 409, code: ErrorCode.ID_CONFLICT });
    });
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/plants$/);
  });
});

describe("timeouts and cancellation", () => {
  it("ends an attempt that outlasts timeoutMs", async () => {
    // The proxy never answers, so the attempt can only end by its own timeout.
    await withProxy([{ kind: "stall" }], async (url) => {
      const error = await failureOf(
        clientFor(url, { timeoutMs: 150, retry: false }).createPlant({ id: freshId(), name: "Fern" }),
      );
      expect(error).toMatchObject({ kind: "timeout", attempts: 1 });
      expect(error.isTransient()).toBe(true);
    });
  });

  it("retries after a timed-out attempt and ends in 200", async () => {
    // Only the first attempt stalls. The timeout is generous for a healthy attempt; should a busy
    // machine still exceed it, the call retries again, so the assertions hold either way.
    const id = freshId();
    await withProxy([{ kind: "stall" }], async (url, proxy) => {
      const result = await clientFor(url, { timeoutMs: 1_500 }).createPlant({ id, name: "Fern" });
      expect(result.attempts).toBeGreaterThanOrEqual(2);
      expect(result.plant).toEqual({ name: "Fern" });
      expect(["created", "unknown"]).toContain(result.outcome);
      expect(proxy.connections()).toBe(result.attempts);
    });
    expect(await clientFor(context.server.url).getPlant(id)).toEqual({ id: BigInt(id), name: "Fern" });
  }, 60_000);

  it("an overall AbortSignal cancels the attempt in flight and the retries", async () => {
    await withProxy([{ kind: "stall" }, { kind: "stall" }], async (url, proxy) => {
      const controller = new AbortController();
      const pending = failureOf(
        clientFor(url, { timeoutMs: 600_000 }).createPlant(
          { id: freshId(), name: "Fern" },
          { signal: controller.signal },
        ),
      );
      // Abort once the request is in flight (it would otherwise wait for the 10-minute timeout).
      await proxy.requestsArrived(1);
      controller.abort();
      const error = await pending;
      expect(error).toMatchObject({ kind: "aborted", attempts: 1 });
      expect(proxy.connections()).toBe(1);
    });
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    await withProxy([], async (url) => {
      const error = await failureOf(
        clientFor(url).createPlant({ id: freshId(), name: "Fern" }, { signal: controller.signal }),
      );
      expect(error).toMatchObject({ kind: "aborted", attempts: 0 });
    });
  });
});
