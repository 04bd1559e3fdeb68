import type { IncomingMessage } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@plantstore/contract";
import { ApiError, sendError } from "../answer.js";
import { pathOf } from "../context.js";
import { publicRoute, type Operation } from "../routing.js";
import { sendDocument } from "./page.js";

/**
 * Files of one directory, served under one URL prefix for good (their names change when their
 * content does: a hashed build, a versioned package). One shape for the docs page's Swagger UI
 * files and the web app's build: which names are served, the path slicing, the cache and the 404
 * are here once.
 *
 * A file may have compressed copies beside it, made at build time: `<name>.br` (brotli) and
 * `<name>.gz` (gzip). A client whose Accept-Encoding accepts one gets it, with Content-Encoding and
 * the copy's Content-Length; every answer of such a file says `Vary: Accept-Encoding`, so that a
 * cache keeps the variants apart.
 */
export interface StaticFiles {
  /** The route's name in logs and metrics. */
  id: string;
  /** The URL prefix, ending with "/": `/web/assets/`. */
  prefix: string;
  /** The route's pattern (what routing matches): `/web/assets/:file`. */
  pattern: string;
  directory: string;
  /** The Content-Type of a file name that is served; undefined for any other name. */
  typeOf: (name: string) => string | undefined;
}

const IMMUTABLE = "public, max-age=31536000, immutable";

/** Compressed copies, best first: what a copy's file name ends with, and its Content-Encoding. */
const ENCODINGS = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;
type Encoding = (typeof ENCODINGS)[number]["encoding"];

const NO_SUCH_FILE = (path: string) => new ApiError(ErrorCode.NOT_FOUND, `no such resource: GET ${path}`);

/** The codings an Accept-Encoding header accepts (RFC 9110 §12.5.3: q=0 refuses; `*` is any other). */
export function acceptedEncodings(header: string | undefined): Set<Encoding> {
  const accepted = new Set<Encoding>();
  if (header === undefined) return accepted;
  const named = new Map<string, boolean>();
  for (const part of header.slice(0, 1024).split(",")) {
    const [coding = "", ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    named.set(coding, q === undefined || Number(q.slice(2)) > 0);
  }
  for (const { encoding } of ENCODINGS) if (named.get(encoding) ?? named.get("*") ?? false) accepted.add(encoding);
  return accepted;
}

interface StoredFile {
  body: Buffer;
  /** The compressed copies found beside it. */
  copies: ReadonlyMap<Encoding, Buffer>;
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

export function staticFilesRoute(files: StaticFiles): Operation {
  // Files are read when first asked for, then kept with their copies: a page costs no memory until
  // someone opens it. Only files that exist are kept, so the cache is bounded by the directory.
  const cache = new Map<string, StoredFile>();
  const stored = (name: string): StoredFile | undefined => {
    let file = cache.get(name);
    if (file === undefined) {
      const body = readIfThere(join(files.directory, name));
      if (body === undefined) return undefined;
      const copies = new Map<Encoding, Buffer>();
      for (const { encoding, suffix } of ENCODINGS) {
        const copy = readIfThere(join(files.directory, name + suffix));
        if (copy !== undefined) copies.set(encoding, copy);
      }
      file = { body, copies };
      cache.set(name, file);
    }
    return file;
  };

  return publicRoute(files.id, files.pattern, (req: IncomingMessage, res) => {
    const path = pathOf(req.url ?? "");
    const name = path.startsWith(files.prefix) ? path.slice(files.prefix.length) : "";
    const type = files.typeOf(name);
    const file = type === undefined ? undefined : stored(name);
    if (type === undefined || file === undefined) return sendError(res, NO_SUCH_FILE(path));
    if (file.copies.size === 0) return sendDocument(res, type, file.body, IMMUTABLE);
    const accepted = acceptedEncodings(req.headers["accept-encoding"]);
    const chosen = ENCODINGS.find(({ encoding }) => accepted.has(encoding) && file.copies.has(encoding));
    const vary = ["Vary", "Accept-Encoding"];
    if (chosen === undefined) return sendDocument(res, type, file.body, IMMUTABLE, vary);
    sendDocument(res, type, file.copies.get(chosen.encoding)!, IMMUTABLE, [
      ...vary,
      "Content-Encoding",
      chosen.encoding,
    ]);
  });
}
