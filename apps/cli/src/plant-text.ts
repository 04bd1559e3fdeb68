import type { StoredPlant } from "@plantstore/contract";

/**
 * A plant as `get` and `list` print it: `id<TAB>name<TAB>tag` (the tag field empty when there is
 * none). Names and tags cannot hold tabs or line breaks (control characters), so the line is
 * unambiguous for `cut -f` and `awk -F'\t'` as well as readable.
 */
export function plantLine({ id, name, tag }: StoredPlant): string {
  return `${id}\t${name}\t${tag ?? ""}\n`;
}
