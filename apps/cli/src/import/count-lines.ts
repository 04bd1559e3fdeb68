import { createReadStream } from "node:fs";

/** Counts the non-blank lines of a file, quickly, to size the progress bar (an estimate). */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let lineHasText = false;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) {
      if (byte === 0x0a) {
        if (lineHasText) lines++;
        lineHasText = false;
      } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) {
        lineHasText = true;
      }
    }
  }
  return lineHasText ? lines + 1 : lines;
}
