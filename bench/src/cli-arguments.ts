/** The command-line arguments, without the `--` that `pnpm run x -- --flag` passes through. */
export function cliArguments(argv: readonly string[] = process.argv.slice(2)): string[] {
  return argv[0] === "--" ? argv.slice(1) : [...argv];
}
