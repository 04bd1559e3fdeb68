// @ts-check
// The server's first import (main.ts): refuses a Node that Plant Store does not support, in one line.
import { requireSupportedNode } from "./supported-node.js";

requireSupportedNode("plantstore");
