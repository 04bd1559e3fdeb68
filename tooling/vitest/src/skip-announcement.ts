// The one-line skip announcement of optional.ts, and how vitestPreset recognises it to print it only
// once per run (each test file runs in its own module scope, so the files cannot agree among themselves).

/** "wrk not found: skipping the wrk tests (install it with `apt-get install wrk`)". */
export function skipMessage(name: string, missing: string, hint: string | undefined): string {
  return `${missing}: skipping the ${name} tests${hint ? ` (${hint})` : ""}`;
}

const SKIP_LINE = /^.+: skipping the .+ tests(?: \(.+\))?$/;

/** A console.log hook for the main process: lets the first of identical skip announcements through. */
export function onceForSkipAnnouncements(): (log: string, type: "stdout" | "stderr") => false | undefined {
  const seen = new Set<string>();
  return (log, type) => {
    const line = log.trim();
    if (type !== "stderr" || !SKIP_LINE.test(line)) return undefined;
    if (seen.has(line)) return false;
    seen.add(line);
    return undefined;
  };
}
