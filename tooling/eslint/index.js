// The workspace's ESLint flat config. Each package's eslint.config.js imports it:
//
//   import { config } from "@plantstore/eslint-config";
//   export default config({ tsconfigRootDir: import.meta.dirname });
//
// TypeScript files are linted with type information (typescript-eslint's project service finds each
// file's tsconfig.json), which the promise rules need: a promise nobody awaits or handles, a promise
// where a callback's void was expected, an await on something that is not a promise. JavaScript files
// (config files, .mjs scripts) are in no tsconfig, so they get the rules without type information.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * @param {object} options
 * @param {string} options.tsconfigRootDir the package's directory: `import.meta.dirname`
 * @param {string[]} [options.ignores] more globs to leave unlinted
 */
export function config({ tsconfigRootDir, ignores = [] }) {
  return defineConfig(
    {
      ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "**/coverage/**", "**/*.generated.ts", ...ignores],
    },
    js.configs.recommended,
    tseslint.configs.recommended,
    {
      languageOptions: {
        globals: globals.node,
        parserOptions: { projectService: true, tsconfigRootDir },
      },
      rules: {
        "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
        "@typescript-eslint/consistent-type-imports": "error",
        "no-control-regex": "off",
        // Type-aware: promises. A promise must be awaited or handled (or explicitly `void`ed, with a
        // comment saying why fire-and-forget is right there); an async function must not go where a
        // callback's return is ignored (its rejection would be lost); only promises are awaited; and a
        // promise returned inside try/catch/finally is awaited there, or the catch and finally miss it.
        // (require-await and promise-function-async were tried: noise, no bugs.)
        "@typescript-eslint/no-floating-promises": "error",
        "@typescript-eslint/no-misused-promises": "error",
        "@typescript-eslint/await-thenable": "error",
        "@typescript-eslint/return-await": ["error", "in-try-catch"],
      },
    },
    {
      files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
      extends: [tseslint.configs.disableTypeChecked],
    },
  );
}
