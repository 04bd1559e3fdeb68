import { isUtf8 } from "node:buffer";
import type { Readable } from "node:stream";

/** One physical line of the source: its text, or why it has none (not UTF-8, too long). */
export type SourceLine = { ok: true; text: string } | { ok: false; reason: string };

/** Far above any valid line (a NewPlant with every character escaped is about 2 KB). */
export const MAX_LINE_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * The lines of a byte stream, split at LF, CRLF or a lone CR (as readline splits them), each
 * decoded as UTF-8 only when it is valid UTF-8: readline would turn invalid bytes into U+FFFD and
 * the import would store a name nobody wrote. Memory is bounded by MAX_LINE_BYTES, however long
 * the stream or a line is: a longer line is reported, not kept.
 */
export async function* utf8Lines(input: AsyncIterable<Buffer | string>): AsyncGenerator<SourceLine> {
  let pieces: Buffer[] = [];
  let length = 0;
  let tooLong = false;
  let afterCr = false; // the last line ended with CR: an LF right after it ends nothing
  const take = (chunk: Buffer, start: number, end: number) => {
    if (tooLong || end === start) return;
    if (length + end - start > MAX_LINE_BYTES) {
      tooLong = true;
      pieces = [];
      return;
    }
    pieces.push(chunk.subarray(start, end));
    length += end - start;
  };
  const finish = (): SourceLine => {
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length);
    const line: SourceLine = tooLong
      ? { ok: false, reason: `longer than ${MAX_LINE_BYTES} bytes` }
      : isUtf8(bytes)
        ? { ok: true, text: bytes.toString("utf8") }
        : { ok: false, reason: "not valid UTF-8 text" };
    pieces = [];
    length = 0;
    tooLong = false;
    return line;
  };
  for await (const data of input) {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    let start = 0;
    if (afterCr && chunk[0] === LF) start = 1;
    afterCr = false;
    let nextLf = chunk.indexOf(LF, start);
    let nextCr = chunk.indexOf(CR, start);
    while (nextLf !== -1 || nextCr !== -1) {
      const end = nextCr === -1 || (nextLf !== -1 && nextLf < nextCr) ? nextLf : nextCr;
      take(chunk, start, end);
      yield finish();
      start = end + 1;
      if (end === nextCr) {
        if (start === chunk.length) afterCr = true;
        else if (chunk[start] === LF) start++;
      }
      if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
      if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
    }
    take(chunk, start, chunk.length);
  }
  if (length > 0 || tooLong) yield finish();
}

/** `input` as an async iterable that ends when `signal` fires, even while waiting for data. */
export function untilAborted(input: Readable, signal: AbortSignal | undefined): AsyncIterable<Buffer | string> {
  return signal === undefined ? input : readUntil(input, signal);
}

async function* readUntil(input: Readable, signal: AbortSignal): AsyncGenerator<Buffer | string> {
  const iterator = input.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
  const aborted = new Promise<IteratorResult<Buffer | string>>((resolve) => {
    if (signal.aborted) resolve({ done: true, value: undefined });
    signal.addEventListener("abort", () => resolve({ done: true, value: undefined }), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next() as Promise<IteratorResult<Buffer | string>>, aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Stop reading for good: a read still waiting on standard input would keep the process alive.
    if (signal.aborted) input.destroy();
    else void iterator.return?.();
  }
}
