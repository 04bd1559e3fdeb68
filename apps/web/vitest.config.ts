import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // The app is built (vite build) before the tests, which test what the server serves.
  globalSetup: ["test/build-app.ts"],
  // Each file starts servers and a browser: one at a time on a shared machine.
  fileParallelism: false,
  testTimeout: 60_000,
  hookTimeout: 120_000,
});
