import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // Validating and linting the OpenAPI documents is CPU work (9 s measured for one validation with
  // one core kept busy and other suites running): no clock of vitest's (5 s by default) decides it
  // on a loaded machine. Speed is measured in `pnpm bench`, never asserted by a test's timeout.
  testTimeout: 30_000,
});
