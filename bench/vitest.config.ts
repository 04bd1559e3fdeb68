import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The baseline tests start real servers and wrk; one file at a time keeps them off each other's cores.
    fileParallelism: false,
    testTimeout: 30_000,
  },
});
