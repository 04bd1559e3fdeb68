// Releases the contract's current version (`pnpm --filter @plantstore/contract release`): copies
// openapi.json to released/<info.version>.json, once the gate lets it through (a new version, a
// new major one for a breaking change, and its entry in docs/api-changes.md). Run `pnpm openapi`
// first: it builds the contract and regenerates openapi.json.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { compareVersions, readDocument, releaseProblems } from "../dist/compat/gate.js";
import { generateOpenApi31Document, serializeOpenApiDocument } from "../dist/openapi.js";

const text = readFileSync(new URL("../openapi.json", import.meta.url), "utf8");
if (text !== serializeOpenApiDocument(generateOpenApi31Document())) {
  console.error("openapi.json is not what the contract emits: run `pnpm openapi` first");
  process.exit(1);
}
const document = readDocument(text);
const version = document.info.version;
const releasedDirectory = new URL("../released/", import.meta.url);
const target = new URL(`${version}.json`, releasedDirectory);

if (existsSync(target)) {
  if (readFileSync(target, "utf8") === text) {
    console.log(`${version} is already released: released/${version}.json is openapi.json`);
    process.exit(0);
  }
  console.error(`released/${version}.json exists and differs: a released version never changes; set a new version`);
  process.exit(1);
}

const latest = readdirSync(releasedDirectory)
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.slice(0, -".json".length))
  .sort(compareVersions)
  .at(-1);
const changelog = readFileSync(new URL("../../../docs/api-changes.md", import.meta.url), "utf8");
if (latest !== undefined) {
  const previous = {
    version: latest,
    document: readDocument(readFileSync(new URL(`${latest}.json`, releasedDirectory), "utf8")),
  };
  const problems = releaseProblems(previous, { version, document }, changelog);
  if (problems.length > 0) {
    console.error(`${version} cannot follow ${latest}:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    console.error("The contract's test (src/compat/gate.test.ts) names each difference and its rule.");
    process.exit(1);
  }
}
writeFileSync(target, text);
console.log(`released ${version}: wrote ${target.pathname}`);
