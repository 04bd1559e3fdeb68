import { randomUUID } from "node:crypto";

/**
 * `JSON.stringify` that writes every `bigint` as an exact JSON integer literal.
 *
 * `JSON.stringify` throws on a bigint, and converting an id above 2^53 to a number would round it.
 * Each bigint is first written as a string holding a per-call random marker and its digits; the
 * quoted marker is then replaced by the bare digits. A marker is unguessable, so no string in the
 * value can be mistaken for one.
 */
export function stringifyExactJson(value: unknown): string {
  const marker = `bigint-${randomUUID()}:`;
  const text = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "bigint" ? `${marker}${item.toString()}` : item,
  );
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, "g"), "$1");
}
