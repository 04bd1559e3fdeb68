// What the checks need to know about Markdown as GitHub renders it: the anchors its headings get and
// the links it holds. Code (fenced blocks, inline code spans) is neither a heading nor a link.

/** One line of a Markdown file with code blanked out, so that nothing inside code is taken for syntax. */
export interface ProseLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly text: string;
}

/** The file's lines with fenced code blocks emptied and inline code spans kept only as their text. */
export function proseLines(markdown: string): ProseLine[] {
  const lines: ProseLine[] = [];
  let fence: string | undefined;
  markdown.split(/\r?\n/).forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      lines.push({ line: index + 1, text: "" });
    } else if (marker !== undefined) {
      fence = marker;
      lines.push({ line: index + 1, text: "" });
    } else {
      lines.push({ line: index + 1, text });
    }
  });
  return lines;
}

/** Inline code spans, which may hold brackets and parentheses that are not links. */
const CODE_SPAN = /(`+)(?:(?!\1).)+?\1/g;

/**
 * The anchor GitHub gives a heading (github-slugger): lower-cased, every character that is not a
 * letter, a digit, a connector such as `_`, a space or a hyphen dropped, spaces made hyphens.
 */
export function githubSlug(headingText: string): string {
  return plainHeadingText(headingText)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** A heading's text as GitHub reads it for its anchor: links as their text, no markup, no HTML. */
function plainHeadingText(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`/g, "")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}])[*_](.+?)[*_](?=$|[^\p{L}\p{N}])/gu, "$1$2")
    .trim();
}

/** Every anchor a reader can link to in this file: its headings' slugs (repeats get -1, -2, …) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = proseLines(markdown);
  lines.forEach(({ text }, index) => {
    for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1] ?? "");
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(text);
    const next = lines[index + 1]?.text ?? "";
    const setext = text.trim() !== "" && !text.includes("|") && /^ {0,3}(=+|-+)\s*$/.test(next) ? text : undefined;
    const heading = atx?.[1] ?? setext;
    if (heading === undefined) return;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
}

/** A link as written: where it points, and on which line. */
export interface Link {
  readonly line: number;
  readonly target: string;
}

/** Every inline link and image (`[text](target)`) and every reference definition (`[label]: target`). */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(CODE_SPAN, (span) => " ".repeat(span.length));
    for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: (match[1] ?? "").replace(/^<|>$/g, "") });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
    if (definition?.[1] !== undefined) links.push({ line, target: definition[1].replace(/^<|>$/g, "") });
  }
  return links;
}

/** The rows of the first table after the heading `heading` (as written, e.g. "## Configuration"), cells trimmed. */
export function tableUnderHeading(markdown: string, heading: string): { line: number; cells: string[] }[] | undefined {
  const lines = proseLines(markdown);
  const start = lines.findIndex(({ text }) => text.trim() === heading);
  if (start < 0) return undefined;
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const rows: { line: number; cells: string[] }[] = [];
  for (const { line, text } of lines.slice(start + 1)) {
    const nextHeading = /^(#+)\s/.exec(text);
    if (nextHeading !== null && (nextHeading[1]?.length ?? 0) <= level) break;
    if (!text.trim().startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push({ line, cells: splitRow(text) });
  }
  // The header row and the delimiter row are not data.
  return rows.slice(2);
}

/** A table row's cells; `\|` and pipes inside code spans do not split. */
function splitRow(row: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let inCode = false;
  const body = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === "\\" && body[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (char === "`") {
      inCode = !inCode;
      cell += char;
    } else if (char === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else {
      cell += char;
    }
  }
  cells.push(cell.trim());
  return cells;
}
