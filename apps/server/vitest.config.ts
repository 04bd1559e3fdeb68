import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // HTTP suites start real servers and spawn processes: run files one at a time on 2 cores.
    fileParallelism: false,
  },
});
