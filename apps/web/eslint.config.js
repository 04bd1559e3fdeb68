import { config } from "@plantstore/eslint-config";

export default config({ tsconfigRootDir: import.meta.dirname });
