import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** What is worth compressing: text. Images and fonts (PNG, WOFF2) are compressed already. */
const COMPRESSIBLE = /\.(?:js|css|svg|html|json|txt)$/;

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text file of the build, at the
 * strongest settings: done once per build, never per request. The server sends a copy to a client
 * whose Accept-Encoding accepts it (apps/server's static-files.ts). A copy that is not smaller than
 * its file is not written.
 */
export function compressAssets(): Plugin {
  return {
    name: "plantstore-compress-assets",
    apply: "build",
    async writeBundle(options, bundle) {
      const directory = options.dir ?? "dist";
      const names = Object.keys(bundle).filter((name) => COMPRESSIBLE.test(name));
      await Promise.all(
        names.map(async (name) => {
          const path = join(directory, name);
          const content = await readFile(path);
          const copies: [string, Buffer][] = [
            [
              ".br",
              await brotli(content, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_SIZE_HINT]: content.byteLength,
                },
              }),
            ],
            [".gz", await gzipped(content, { level: constants.Z_BEST_COMPRESSION })],
          ];
          for (const [suffix, copy] of copies) {
            if (copy.byteLength < content.byteLength) await writeFile(path + suffix, copy);
          }
        }),
      );
    },
  };
}
