import { PlantStoreError } from "@plantstore/client";
import { describe, expect, it } from "vitest";
import { describeFailure, newPlantFrom } from "./api.js";

describe("what the page says of a failure", () => {
  it("is the server's own message, with the wait a 503 or 429 asked for", () => {
    const unavailable = new PlantStoreError({
      kind: "http",
      status: 503,
      code: 503001,
      detail: "storage is unavailable; retry later",
      retryAfterMs: 2_000,
      message: "HTTP 503: storage is unavailable; retry later",
    });
    expect(describeFailure(unavailable)).toBe("storage is unavailable; retry later (try again in 2 seconds)");
    // A 429's message already says the wait: the page says it once.
    const limited = new PlantStoreError({
      kind: "http",
      status: 429,
      code: 429001,
      detail: "rate limit exceeded; retry in 3600 s",
      retryAfterMs: 3_600_000,
      message: "HTTP 429: rate limit exceeded; retry in 3600 s",
    });
    expect(describeFailure(limited)).toBe("rate limit exceeded; retry in 3600 s");
    const conflict = new PlantStoreError({ kind: "http", status: 409, detail: "id 7 is taken", message: "HTTP 409" });
    expect(describeFailure(conflict)).toBe("id 7 is taken");
    const unreachable = new PlantStoreError({ kind: "network", message: "could not reach http://x: fetch failed" });
    expect(describeFailure(unreachable)).toBe("could not reach http://x: fetch failed");
  });
});

describe("the add form, checked with the contract before sending", () => {
  it("reads the id digit for digit as a bigint, and leaves an empty tag out", () => {
    expect(newPlantFrom({ id: " 9223372036854775807 ", name: "Fern", tag: "" })).toEqual({
      ok: true,
      plant: { id: 9_223_372_036_854_775_807n, name: "Fern" },
    });
  });

  it.each([
    [{ id: "", name: "Fern", tag: "" }, "Id: must be a whole number"],
    [{ id: "1.5", name: "Fern", tag: "" }, "Id: must be a whole number"],
    [{ id: "-9223372036854775809", name: "Fern", tag: "" }, "Id: must be between -2^63 and 2^63-1 (int64)"],
    [{ id: "1", name: "", tag: "" }, /^Name: /],
    [{ id: "1", name: "Fern", tag: "x".repeat(1000) }, /^Tag: /],
  ])("refuses %j with the reason", (form, reason) => {
    const checked = newPlantFrom(form);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? "" : checked.reason).toMatch(reason);
    // The reason names the field it is shown beside.
    expect(checked.ok ? "" : `${checked.field}:`).toBe(checked.ok ? "" : checked.reason.split(" ")[0]!.toLowerCase());
  });
});
