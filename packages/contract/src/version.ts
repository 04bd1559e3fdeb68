/**
 * The contract's version (semantic versioning of the API, not of any package): a breaking change
 * is a new MAJOR version, an addition a new MINOR one, a change of wording only a PATCH. It is the
 * OpenAPI documents' `info.version`, and every answer of the server says it in `API-Version`.
 * The contract package's test (src/compat/gate.test.ts) refuses a change of the contract that does
 * not come with a new version here, a docs/api-changes.md entry and released/<version>.json.
 */
export const API_VERSION = "3.0.0";

/** The response header that carries API_VERSION on every answer. */
export const API_VERSION_HEADER = "API-Version";
