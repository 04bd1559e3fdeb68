import { pino } from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStorage } from "../store/open-storage.js";
import type { Storage, TokenRepository } from "../store/storage.js";
import { testBackends } from "../test-support/databases.js";
import { waitFor } from "../test-support/wait-for.js";
import { generateToken, hashToken } from "./token-hash.js";
import { TokenVerifier } from "./token-verifier.js";

const logger = pino({ level: "silent" });
const options = { poolMax: 4, connectionTimeoutMs: 5_000, idleTimeoutMs: 30_000, logger };
const TOKENS = 300;

/** The real repository, with a count of the refresh's reads and of the token rows they returned. */
function counted(repository: TokenRepository) {
  const count = { reads: 0, rows: 0 };
  const observed: TokenRepository = Object.create(repository) as TokenRepository;
  observed.changesSince = async (version) => {
    const changes = await repository.changesSince(version);
    count.reads++;
    count.rows += changes.tokens.length;
    return changes;
  };
  return { observed, count };
}

describe.each(testBackends().map((backend) => [backend.name, backend] as const))(
  "the token refresh on %s",
  (_, backend) => {
    const opened: Storage[] = [];
    const verifiers: TokenVerifier[] = [];
    afterEach(async () => {
      for (const verifier of verifiers.splice(0)) verifier.stop();
      await Promise.all(opened.splice(0).map((storage) => storage.close()));
    });
    afterAll(() => backend.cleanup());

    it(`reads only what changed, never every token again (${TOKENS} tokens), and a miss reads no token`, async () => {
      const storage = await openStorage(await backend.freshDatabaseUrl(), options);
      opened.push(storage);
      const tokens = Array.from({ length: TOKENS }, generateToken);
      for (const [i, token] of tokens.entries()) await storage.tokens.add(hashToken(token), `t${i}`, ["plants:read"]);
      const { observed, count } = counted(storage.tokens);
      const verifier = new TokenVerifier([], observed, logger);
      verifiers.push(verifier);
      await verifier.start();
      expect(count.rows).toBe(TOKENS);
      expect(verifier.verify(tokens[0]!)).toMatchObject({ scopes: new Set(["plants:read"]) });

      // Refreshes go on every second; a flood of unknown tokens looks for changes, and finds none.
      const before = { ...count };
      for (let i = 0; i < 200; i++) await verifier.verify(generateToken());
      await waitFor("three more refreshes", () => count.reads >= before.reads + 3);
      expect(count.rows).toBe(TOKENS);

      // A revocation and a creation are each one row read, and are seen.
      const [first] = await storage.tokens.list();
      await storage.tokens.revoke(first!.id);
      const fresh = generateToken();
      await storage.tokens.add(hashToken(fresh), "fresh", ["metrics:read"]);
      await waitFor("the revoked token to be refused", async () => (await verifier.verify(tokens[0]!)) === undefined);
      await waitFor("the new token to be accepted", async () => (await verifier.verify(fresh)) !== undefined);
      expect(count.rows).toBeLessThanOrEqual(TOKENS + 2 * 2);
      expect(verifier.verify(tokens[1]!)).toBeDefined();
    });
  },
);
