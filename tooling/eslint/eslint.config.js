import { config } from "./index.js";

export default config({ tsconfigRootDir: import.meta.dirname });
