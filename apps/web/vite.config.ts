import { defineConfig } from "vite";
import { compressAssets } from "./compress-assets.js";

/** Where the dev server sends API requests: the Plant Store started with `npm start`. */
const api = process.env.PLANTSTORE_URL ?? "http://127.0.0.1:3000";

export default defineConfig({
  // The server serves index.html at / and the built files under /web/ (apps/server's web route).
  base: "/web/",
  // Brotli and gzip copies of the built text files, which the server sends to clients that accept them.
  plugins: [compressAssets()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    rollupOptions: {
      // TanStack Query marks its hooks "use client" for React Server Components, which a
      // single-page bundle has no use for: the directive is dropped, rightly, on every build.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  // JSX through Vite's own transform (oxc), React's automatic runtime: no Babel plugin needed.
  oxc: { jsx: { runtime: "automatic" } },
  server: {
    host: "127.0.0.1",
    // Same origin for the page: the dev server forwards the API's paths, so no CORS is needed.
    proxy: Object.fromEntries(["/plants", "/healthz", "/readyz", "/openapi.json"].map((path) => [path, api])),
  },
});
