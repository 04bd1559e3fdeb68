import { vitestPreset } from "@plantstore/vitest-config";

export default vitestPreset();
