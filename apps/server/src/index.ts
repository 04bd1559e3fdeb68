// What embedders and the sibling packages' tests use: start the real server in-process.
export { startServer, type RunningServer } from "./server.js";
export type { Config } from "./config.js";
