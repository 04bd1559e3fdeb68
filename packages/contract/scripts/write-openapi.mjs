// Regenerates the committed OpenAPI documents from the built contract (`pnpm openapi`):
// openapi.json (3.1.0) and openapi-3.0.json (the same API for tools that read only 3.0).
import { writeFileSync } from "node:fs";
import { generateOpenApi30Document, generateOpenApi31Document, serializeOpenApiDocument } from "../dist/openapi.js";

for (const [file, generate] of [
  ["openapi.json", generateOpenApi31Document],
  ["openapi-3.0.json", generateOpenApi30Document],
]) {
  const target = new URL(`../${file}`, import.meta.url);
  writeFileSync(target, serializeOpenApiDocument(generate()));
  console.log(`wrote ${target.pathname}`);
}
