import { describe, expect, it } from "vitest";
import { checkStatuses } from "./scenarios.js";

describe("checkStatuses", () => {
  it("accepts only 200s for creates and replays", () => {
    expect(checkStatuses("create", { "200": 10 })).toBeUndefined();
    expect(checkStatuses("replay", { "200": 9, "500": 1 })).toBe("expected only 200, got 1× 500");
  });
  it("accepts only 401s for the bad-token flood", () => {
    expect(checkStatuses("unauth", { "401": 5 })).toBeUndefined();
    expect(checkStatuses("unauth", { "200": 5 })).toBe("expected only 401, got 5× 200");
  });
  it("wants about half 409s in the conflict scenario", () => {
    expect(checkStatuses("conflict", { "200": 501, "409": 499 })).toBeUndefined();
    expect(checkStatuses("conflict", { "200": 1000 })).toBe("expected about 50 % 409s, got 0.0 %");
    expect(checkStatuses("conflict", { "200": 5, "409": 5, "400": 1 })).toBe("expected only 200/409, got 1× 400");
  });
  it("fails a run that got no answers", () => {
    expect(checkStatuses("create", {})).toBe("no responses at all");
  });
});
