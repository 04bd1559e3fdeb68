// Generates src/schema.generated.ts from the committed OpenAPI document, as an external consumer
// would (`openapi-typescript openapi.json -o schema.ts`), through openapi-typescript's Node API.
// It runs at the head of `typecheck` (as a script) and of the tests (as vitest's globalSetup, see
// vitest.config.ts), so both always check the committed file. Turbo may run those two at once, so the
// file is replaced atomically (write beside, then rename) and only when its text changes: a
// concurrent `tsc` never reads a half-written file.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { COMMENT_HEADER, astToString } from "openapi-typescript";

const documentUrl = new URL("../../../packages/contract/openapi.json", import.meta.url);
const targetUrl = new URL("../src/schema.generated.ts", import.meta.url);

export default async function generateSchema() {
  let source;
  try {
    source = COMMENT_HEADER + astToString(await openapiTS(documentUrl, { silent: true }));
  } catch (error) {
    throw new Error(`generate-schema: cannot turn ${documentUrl.pathname} into types: ${error.message}`);
  }

  let current = null;
  try {
    current = readFileSync(targetUrl, "utf8");
  } catch {
    // not generated yet
  }
  if (current !== source) {
    const temporaryUrl = new URL(`${targetUrl.href}.${process.pid}.tmp`);
    writeFileSync(temporaryUrl, source);
    renameSync(temporaryUrl, targetUrl);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await generateSchema();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
