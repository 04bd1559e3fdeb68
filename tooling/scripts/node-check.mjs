// The first import of `npm start`, `npm test` and the `npm run` commands: refuses a Node.js that Plant
// Store does not support, in one line naming what the user ran, before anything is installed or
// built. The rule itself is the server's (apps/server/src/supported-node.js, plain JavaScript so that
// it runs from source here, on any Node).
import { requireSupportedNode } from "../../apps/server/src/supported-node.js";

const event = process.env.npm_lifecycle_event;
requireSupportedNode(
  event === undefined ? "plantstore" : event === "start" || event === "test" ? `npm ${event}` : `npm run ${event}`,
);
