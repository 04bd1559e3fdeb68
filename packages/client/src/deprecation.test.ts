import { deprecation, plantStoreContract, type PlantStoreContract } from "@plantstore/contract";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPRECATION_WARNING_CODE } from "./deprecation-warning.js";
import { clientFor } from "./test-support/harness.js";
import { TEST_TOKEN } from "./test-support/test-server.js";

/** The real server, serving Plant Store's contract with GET and DELETE /plants/{id} deprecated (nothing is, today). */
const fixture: PlantStoreContract = {
  ...plantStoreContract,
  getPlant: {
    ...plantStoreContract.getPlant,
    metadata: {
      scope: "plants:read",
      deprecated: deprecation({ since: "2026-12-01", sunset: "2027-06-01", replacement: "GET /plants" }),
    },
  },
  deletePlant: {
    ...plantStoreContract.deletePlant,
    metadata: {
      scope: "plants:write",
      deprecated: deprecation({ since: "2026-12-01", replacement: "nothing", link: "https://example.com/why" }),
    },
  },
};

let server: DisposableServer;
const warnings: Error[] = [];
const record = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  server = await startDisposableServer({ tokens: [TEST_TOKEN], prefix: "plantstore-client-", contract: fixture });
  process.on("warning", record);
});
afterAll(async () => {
  process.off("warning", record);
  await server?.close();
});

/** Process warnings are emitted on the next tick: let them arrive before counting. */
const settled = () => new Promise((resolve) => setImmediate(resolve));
const ours = () =>
  warnings.filter((warning) => (warning as Error & { code?: string }).code === DEPRECATION_WARNING_CODE);

describe("a deprecated operation's answers", () => {
  it("make the client warn once per process, with the day, the sunset and the link", async () => {
    const client = clientFor(server.url);
    await client.createPlant({ id: 1, name: "Fern" });
    await settled();
    expect(ours()).toEqual([]);

    await client.getPlant(1);
    await client.getPlant(1);
    await clientFor(server.url).getPlant(1); // another client, the same process
    await settled();
    expect(ours().map(({ name, message }) => ({ name, message }))).toEqual([
      {
        name: "DeprecationWarning",
        message:
          "Plant Store: GET /plants/:id is deprecated (since 2026-12-01); it may be removed from Tue, 01 Jun 2027 00:00:00 GMT; see /docs#/plants/getPlant",
      },
    ]);
  });

  it("make it warn on a refusal too (a 404 of a deprecated operation)", async () => {
    const warnedBefore = ours().length;
    await expect(clientFor(server.url).deletePlant(404_404)).rejects.toMatchObject({ status: 404 });
    await settled();
    expect(
      ours()
        .slice(warnedBefore)
        .map(({ message }) => message),
    ).toEqual(["Plant Store: DELETE /plants/:id is deprecated (since 2026-12-01); see https://example.com/why"]);
  });
});
