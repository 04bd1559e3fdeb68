import { startServer } from "@plantstore/server";
import { afterAll, beforeAll } from "vitest";

/** The token the consumer's tests send: every scope. */
export const TOKEN = "consumer-test-token-0123456789abcdef";

/**
 * The real Plant Store server for one test file: started before its tests on an ephemeral port with
 * a throwaway in-memory SQLite store, closed after them. `moreTokens` are PLANTSTORE_TOKENS entries
 * besides TOKEN (e.g. "<token>:plants:read"). Call it before the file's own beforeAll hooks, which
 * then run with the server up.
 */
export function realServerForTests(moreTokens: readonly string[] = []): { readonly url: string } {
  let url: string | undefined;
  let close: (() => Promise<unknown>) | undefined;
  beforeAll(async () => {
    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      databaseUrl: "sqlite::memory:",
      tokens: [TOKEN, ...moreTokens],
      logLevel: "silent",
    });
    url = server.url;
    close = () => server.close();
  });
  afterAll(async () => {
    await close?.();
  });
  return {
    get url(): string {
      if (url === undefined) throw new Error("the server starts in beforeAll: read its url in a test or a later hook");
      return url;
    },
  };
}
