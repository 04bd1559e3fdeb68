import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // The tests spawn the built command (dist/main.js): build it from the current source first.
  buildFirst: true,
  // Each CLI test spawns the built command (a Node start-up is ~0.3 s, more on a busy machine).
  testTimeout: 20_000,
});
