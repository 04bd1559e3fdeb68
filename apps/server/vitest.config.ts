import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // Tests spawn `node dist/main.js` and start the SQLite writer thread from dist/: build it first.
  buildFirst: true,
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // HTTP suites start real servers and spawn processes: run files one at a time on 2 cores.
  fileParallelism: false,
  // Every answer the suite observes from the API is checked against the OpenAPI 3.1 document.
  globalSetup: ["src/test-support/observed-responses.ts"],
  setupFiles: ["src/test-support/record-responses.ts"],
});
