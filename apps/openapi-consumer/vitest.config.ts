import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // The types under test are generated from the committed OpenAPI document first.
  globalSetup: ["./scripts/generate-schema.mjs"],
  // Tests talk HTTP to a real server: no clock of vitest's (5 s by default) decides them on a loaded machine.
  testTimeout: 30_000,
  hookTimeout: 30_000,
});
