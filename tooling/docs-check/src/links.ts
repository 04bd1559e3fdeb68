// Every relative link in a Markdown file leads to a file that exists, and every #anchor to a heading
// that exists (GitHub's anchor rules). Links to the web are not fetched.
import { dirname, join, normalize } from "node:path";
import { anchorsOf, linksOf } from "./markdown.js";

/** What the link check reads: the files to check, and the repository around them. */
export interface LinkSource {
  /** Markdown files to check, relative to the repository root, with `/`. */
  readonly markdownFiles: readonly string[];
  /** The text of a file (relative path), or undefined when there is no such file or directory. */
  readonly read: (path: string) => string | undefined;
  /** Whether a path (relative to the root) exists, file or directory. */
  readonly exists: (path: string) => boolean;
}

const WEB_OR_OTHER_SCHEME = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

export function checkLinks(source: LinkSource): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string): Set<string> => {
    let anchors = anchorCache.get(path);
    if (anchors === undefined) {
      anchors = anchorsOf(source.read(path) ?? "");
      anchorCache.set(path, anchors);
    }
    return anchors;
  };

  for (const file of source.markdownFiles) {
    const text = source.read(file);
    if (text === undefined) continue;
    for (const { line, target } of linksOf(text)) {
      if (WEB_OR_OTHER_SCHEME.test(target)) continue;
      const hash = target.indexOf("#");
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : safeDecode(target.slice(hash + 1));
      const decoded = safeDecode(pathPart.split("?")[0] ?? "");
      const resolved =
        decoded === ""
          ? file
          : normalize(decoded.startsWith("/") ? decoded.slice(1) : join(dirname(file), decoded)).replace(/\\/g, "/");
      const where = `${file}:${line}: the link (${target})`;
      if (resolved.startsWith("../") || resolved === "..") {
        problems.push(`${where} leads outside the repository; link to a file in it, or give a full https:// address`);
        continue;
      }
      if (!source.exists(resolved.replace(/\/$/, "") || ".")) {
        problems.push(`${where} leads to ${resolved}, which does not exist; fix the path or add the file`);
        continue;
      }
      if (anchor === undefined || anchor === "" || !resolved.endsWith(".md")) continue;
      const anchors = anchorsIn(resolved);
      if (!anchors.has(anchor)) {
        const known = [...anchors].map((a) => `#${a}`);
        problems.push(
          `${where} points to #${anchor}, but ${resolved} has no heading with that anchor; ` +
            `use one of its anchors (${known.length > 0 ? known.join(", ") : "it has no headings"}) or add the heading`,
        );
      }
    }
  }
  return problems;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
