import { readFileSync } from "node:fs";
import { request, type IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startDisposableServer, type DisposableServer } from "@plantstore/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "./support.js";

const DIST = new URL("../dist/", import.meta.url);

/** One exchange as it is on the wire (fetch would decode the body and hide what was sent). */
function get(
  url: string,
  headers: Record<string, string>,
  method = "GET",
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const decode: Record<string, (body: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  identity: (body) => body,
};

describe("the web app's files, compressed at build time", () => {
  let server: DisposableServer;
  let files: string[];
  beforeAll(async () => {
    server = await startDisposableServer({ tokens: [TOKEN], prefix: "plantstore-web-" });
    const html = await (await fetch(`${server.url}/`)).text();
    files = [...html.matchAll(/(?:src|href)="\/web\/(assets\/[^"]+\.(?:js|css))"/g)].map(([, path]) => path!);
  });
  afterAll(() => server?.close());

  it("go to each client in the best coding its Accept-Encoding accepts, with Vary and the copy's length", async () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
    const cases: [string | undefined, string][] = [
      ["gzip, deflate, br", "br"],
      ["br", "br"],
      ["gzip", "gzip"],
      ["br;q=0, gzip;q=0.5", "gzip"],
      ["*", "br"],
      ["br;q=0, *", "gzip"],
      ["deflate", "identity"],
      ["gzip;q=0, br;q=0", "identity"],
      ["identity", "identity"],
      [undefined, "identity"],
    ];
    for (const file of files) {
      const original = readFileSync(new URL(file, DIST));
      for (const [acceptEncoding, expected] of cases) {
        const what = `${file} with Accept-Encoding: ${acceptEncoding}`;
        const answer = await get(
          `${server.url}/web/${file}`,
          acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
        );
        expect(answer.status, what).toBe(200);
        expect(answer.headers["content-encoding"] ?? "identity", what).toBe(expected);
        expect(answer.headers.vary, what).toBe("Accept-Encoding");
        expect(answer.headers["content-length"], what).toBe(String(answer.body.byteLength));
        expect(answer.headers["cache-control"], what).toBe("public, max-age=31536000, immutable");
        expect(answer.headers["content-type"], what).toMatch(/^text\/(javascript|css); charset=utf-8$/);
        expect(decode[expected]!(answer.body).equals(original), what).toBe(true);
      }
    }
  });

  it("make the app's JavaScript a third of its size or less on the wire", async () => {
    const script = files.find((file) => file.endsWith(".js"))!;
    const plain = await get(`${server.url}/web/${script}`, {});
    const compressed = await get(`${server.url}/web/${script}`, { "accept-encoding": "gzip, deflate, br" });
    expect(compressed.body.byteLength * 3).toBeLessThan(plain.body.byteLength);
    // HEAD says the length of what GET would send, and sends nothing.
    const head = await get(`${server.url}/web/${script}`, { "accept-encoding": "br" }, "HEAD");
    expect([head.headers["content-length"], head.body.byteLength]).toEqual([String(compressed.body.byteLength), 0]);
  });

  it("are never served by their own names", async () => {
    for (const suffix of [".br", ".gz"]) {
      const answer = await get(`${server.url}/web/${files[0]}${suffix}`, { "accept-encoding": "br, gzip" });
      expect(answer.status).toBe(404);
      expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    }
  });
});
