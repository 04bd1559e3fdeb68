/**
 * Test support for packages that test against a Plant Store through this client
 * (`@plantstore/client/testing`): a TCP proxy that misbehaves on cue, in front of the real server.
 */
export { startFlakyProxy, type FlakyProxy, type ProxyFault } from "./flaky-proxy.js";
