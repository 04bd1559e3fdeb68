import type { PageQuery, PlantFilter } from "./storage.js";

/**
 * The SQL of every list and count of plants, for both backends: the same shapes, conditions and
 * indexes, so that both answer the same pages. What differs is a dialect: how a parameter is
 * written, the name key's expression (the one its index is on), and SQLite's INDEXED BY.
 *
 * The name filter is a prefix of the name key: the name with A–Z folded to a–z and nothing else
 * changed, which both databases compute alike by themselves and index as an expression (SQLite's
 * built-in lower() folds ASCII only; PostgreSQL's lower() under the "C" collation too), compared
 * in code point order (SQLite's BINARY collation; "C" on PostgreSQL). A prefix is a range of keys:
 * [prefix, the first text after every text that starts with it), so `%` and `_` are characters
 * like any other, and the index serves it on both backends.
 */
export interface Dialect {
  /** The name key expression, exactly as the index has it. */
  readonly nameKey: string;
  /** The placeholder of the next parameter, which takes `value`. */
  param(value: unknown, type?: "bigint"): string;
  /** SQLite only: which index a name-filtered query must use (undefined: the planner decides). */
  indexedBy?(filter: PlantFilter): string | undefined;
}

/** The highest code point: a prefix made only of these has no text after its range. */
const MAX_CODE_POINT = 0x10ffff;

/** The name key of a text: A–Z folded to a–z, every other character as it is. */
export function nameKey(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The keys that start with `prefix`'s key: from it (included) to `below` (excluded), the first text
 * in code point order after all of them: the key with its last code point that can grow grown by one
 * (skipping the surrogates, which UTF-8 cannot hold), or, for a key of U+10FFFF alone, none.
 */
export function nameRange(prefix: string): { from: string; below: string | undefined } {
  const from = nameKey(prefix);
  const codePoints = Array.from(from, (character) => character.codePointAt(0)!);
  while (codePoints.length > 0) {
    const last = codePoints.pop()!;
    if (last < MAX_CODE_POINT) {
      codePoints.push(last === 0xd7ff ? 0xe000 : last + 1);
      return { from, below: String.fromCodePoint(...codePoints) };
    }
  }
  return { from, below: undefined };
}

/** The conditions of a filter, and of the page's cursor (after, in the page's order). */
function conditions(dialect: Dialect, filter: PlantFilter, after?: { id: bigint; descending: boolean }): string[] {
  const where: string[] = [];
  if (filter.tag !== undefined) where.push(`tag = ${dialect.param(filter.tag)}`);
  if (filter.name !== undefined) where.push(nameCondition(dialect, filter.name));
  if (after !== undefined) where.push(`id ${after.descending ? "<" : ">"} ${dialect.param(after.id, "bigint")}`);
  return where;
}

function nameCondition(dialect: Dialect, prefix: string): string {
  const { from, below } = nameRange(prefix);
  const lower = `${dialect.nameKey} >= ${dialect.param(from)}`;
  return below === undefined ? lower : `${lower} AND ${dialect.nameKey} < ${dialect.param(below)}`;
}

const whereClause = (where: string[]) => (where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`);
const cursor = ({ after, order }: PageQuery) =>
  after === undefined ? undefined : { id: after, descending: order === "desc" };
const direction = ({ order }: PageQuery) => (order === "desc" ? " DESC" : "");

/**
 * A page through an index: by id (the primary key), one tag ((tag, id)), or, with a name, the
 * name's range of keys (the name index, or the tag-and-name index), then sorted by id. A name page
 * reads every key of its range: the list use case takes this way only for a range it has counted
 * to be small (see listPlants).
 */
export function pageSql(dialect: Dialect, query: PageQuery): string {
  const indexed = query.name === undefined ? undefined : dialect.indexedBy?.(query);
  const where = conditions(dialect, query, cursor(query));
  const limit = dialect.param(query.limit);
  return `SELECT id, name, tag FROM plants${indexed === undefined ? "" : ` INDEXED BY ${indexed}`}${whereClause(where)} ORDER BY id${direction(query)} LIMIT ${limit}`;
}

/**
 * A page of a name prefix read in id order: at most `window` plants after the cursor (of the tag,
 * when one is given) are read, in the page's order, and those whose name matches are answered, up to
 * `limit`. Each answered row says whether it matched, and the last plant of a full window is answered
 * too (its `n` is the window's size) whether or not it matches: where the next read must start when
 * the window ended before the page was full. One statement, so that the window and its last plant are
 * one snapshot. `limit` + 1 rows always suffice: either `limit` + 1 matches (more follow), or at most
 * `limit` matches and the window's last plant.
 */
export function scanSql(dialect: Dialect, query: PageQuery & { name: string }, window: number): string {
  const inner = conditions(dialect, { tag: query.tag }, cursor(query));
  const windowLimit = dialect.param(window);
  const matched = nameCondition(dialect, query.name);
  const windowEnd = dialect.param(window);
  const limit = dialect.param(query.limit + 1);
  return (
    `SELECT id, name, tag, matched, n FROM (` +
    `SELECT id, name, tag, (${matched}) AS matched, row_number() OVER (ORDER BY id${direction(query)}) AS n FROM (` +
    `SELECT id, name, tag FROM plants${whereClause(inner)} ORDER BY id${direction(query)} LIMIT ${windowLimit}) AS scanned` +
    `) AS numbered WHERE matched OR n = ${windowEnd} ORDER BY id${direction(query)} LIMIT ${limit}`
  );
}

/** How many plants match the filter, counted up to `upTo` at most: as cheap as reading `upTo` index entries. */
export function countSql(dialect: Dialect, filter: PlantFilter, upTo: number): string {
  const indexed = filter.name === undefined ? undefined : dialect.indexedBy?.(filter);
  const where = conditions(dialect, filter);
  return `SELECT count(*) AS n FROM (SELECT 1 FROM plants${indexed === undefined ? "" : ` INDEXED BY ${indexed}`}${whereClause(where)} LIMIT ${dialect.param(upTo)}) AS counted`;
}
