// Regenerates the committed openapi.json from the built contract (`pnpm openapi`).
import { writeFileSync } from "node:fs";
import { generateOpenApiDocument, serializeOpenApiDocument } from "../dist/index.js";

const target = new URL("../openapi.json", import.meta.url);
writeFileSync(target, serializeOpenApiDocument(generateOpenApiDocument()));
console.log(`wrote ${target.pathname}`);
