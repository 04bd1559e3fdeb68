import { vitestPreset } from "@plantstore/vitest-config";

// The types under test are generated from the committed OpenAPI document first.
export default vitestPreset({ globalSetup: ["./scripts/generate-schema.mjs"] });
