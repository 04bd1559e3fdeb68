import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // The baseline tests start the built baselines (dist/baselines/*.js): build them first.
  buildFirst: true,
  // The baseline tests start real servers and wrk; one file at a time keeps them off each other's cores.
  fileParallelism: false,
  testTimeout: 30_000,
});
