import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Each CLI test spawns the built command (a Node start-up is ~0.3 s, more on a busy machine).
    testTimeout: 20_000,
  },
});
