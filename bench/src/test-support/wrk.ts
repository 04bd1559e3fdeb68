import { optionalTool } from "@plantstore/vitest-config/optional";
import { WRK_INSTALL, wrkInstalled } from "../wrk.js";

/**
 * wrk, for the suites that load a server with it: without it they are skipped, saying so in one line
 * ("wrk not found: skipping the wrk tests (install it with `apt-get install wrk`)"), or fail under CI=true.
 */
export const wrk = optionalTool({ name: "wrk", isAvailable: wrkInstalled, install: WRK_INSTALL });
