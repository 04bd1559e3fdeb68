/**
 * The compiled thread module `name` (writer-thread, reader-thread) beside `moduleUrl`, the URL of
 * the module in this directory that starts it. Built, the thread sits next to that module whatever
 * the install path (`/usr/src/app` included). Run from the TypeScript source (the tests), it is the
 * built one in the package's dist/: the vitest preset builds first, so the thread always runs the
 * current source. The path is taken relative to the module, never by rewriting a "/src/" that any
 * parent directory may also contain.
 */
export function threadUrl(name: "writer-thread" | "reader-thread", moduleUrl: string): URL {
  return moduleUrl.endsWith(".ts")
    ? new URL(`../../../dist/store/sqlite/${name}.js`, moduleUrl)
    : new URL(`./${name}.js`, moduleUrl);
}
