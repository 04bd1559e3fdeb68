import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset({
  // entries.test.ts bundles the package by its name, as a web app would: that reads dist/.
  buildFirst: true,
  // Tests talk HTTP to a real server: vitest's 5 s default failed a 100-request page walk by the
  // clock when the machine's two cores were shared with another test run. A test fails on what it
  // sees, not on how fast a loaded machine is.
  testTimeout: 30_000,
  hookTimeout: 30_000,
});
