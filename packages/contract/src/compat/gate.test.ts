import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateOpenApi31Document, serializeOpenApiDocument } from "../openapi.js";
import { API_VERSION } from "../version.js";
import { compareVersions, gateFailure, readDocument, releaseProblems, type VersionedDocument } from "./gate.js";

/**
 * The gate on the real contract: the document it emits now against the latest released one, and
 * the history (each released version against the next) by the same rules.
 */
const releasedDirectory = new URL("../../released/", import.meta.url);
const changelog = readFileSync(new URL("../../../../docs/api-changes.md", import.meta.url), "utf8");

const texts = new Map<string, string>();
const released: VersionedDocument[] = readdirSync(releasedDirectory)
  .filter((file) => file.endsWith(".json"))
  .map((file) => {
    const text = readFileSync(new URL(file, releasedDirectory), "utf8");
    const version = file.slice(0, -".json".length);
    texts.set(version, text);
    return { version, document: readDocument(text) };
  })
  .sort((a, b) => compareVersions(a.version, b.version));

describe("the released documents", () => {
  it("start at 1.0.0 and each says its own version", () => {
    expect(released[0]?.version).toBe("1.0.0");
    for (const { version, document } of released) {
      expect((document.info as { version: string }).version, `released/${version}.json`).toBe(version);
      expect(document.openapi, `released/${version}.json`).toBe("3.1.0");
    }
  });

  it("are written as the contract writes its documents (read losslessly: int64 bounds keep every digit)", () => {
    for (const { version, document } of released) {
      expect(serializeOpenApiDocument(document), `released/${version}.json`).toBe(texts.get(version));
    }
  });

  it.each(released.slice(1).map((next, index) => ({ previous: released[index]!, next })))(
    "$previous.version → $next.version follows the rules (a new major version for each breaking change, a changelog entry)",
    ({ previous, next }) => {
      expect(releaseProblems(previous, next, changelog)).toEqual([]);
    },
  );

  it("each have a changelog entry, newest first", () => {
    const headings = [...changelog.matchAll(/^## (\d+\.\d+\.\d+)\b/gm)].map((match) => match[1]!);
    expect(headings).toEqual([...headings].sort((a, b) => compareVersions(b, a)));
    for (const { version } of released) expect(headings).toContain(version);
  });
});

describe("the contract's document now", () => {
  it("is the latest released one, or a change the gate lets through (else: what to do)", () => {
    const emitted = readDocument(serializeOpenApiDocument(generateOpenApi31Document()));
    const failure = gateFailure(
      released,
      { version: API_VERSION, document: emitted },
      changelog,
      (latest, now) => serializeOpenApiDocument(latest) === serializeOpenApiDocument(now),
    );
    // The message names each difference (pointer and rule) and the steps: it is the whole report.
    if (failure !== undefined) expect.fail(`\n${failure}\n`);
  });
});
