// This package's own tests; the preset it exports is for the other packages (it runs from dist/).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
  },
});
