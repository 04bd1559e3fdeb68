import { randomUUID } from "node:crypto";

/**
 * A marker no caller can predict (random per process): a bigint is first written as a string
 * `"<marker><digits>"`, and only those strings are then turned into bare digits, so no string in
 * the value can be mistaken for one.
 */
const MARKER = `bigint-${randomUUID()}:`;
const MARKED_BIGINT = new RegExp(`"${MARKER}(-?\\d+)"`, "g");

/**
 * `JSON.stringify` that writes every `bigint` as an exact JSON integer literal (`JSON.stringify`
 * throws on a bigint, and converting an id above 2^53 to a number would round it).
 */
export function stringifyExactJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "bigint") return item;
    sawBigint = true;
    return `${MARKER}${item.toString()}`;
  });
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return sawBigint ? text.replace(MARKED_BIGINT, "$1") : text;
}
