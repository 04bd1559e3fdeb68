/**
 * What every baseline reads from its environment, so the runner starts them all alike:
 * PORT (required), DB_PATH (the durable ones), PLANTSTORE_TOKENS (comma-separated, as the server reads it).
 */
export interface BaselineEnv {
  port: number;
  dbPath: string;
  tokens: ReadonlySet<string>;
}

export function readBaselineEnv(env: NodeJS.ProcessEnv = process.env): BaselineEnv {
  const port = Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
    process.exit(2);
  }
  const tokens = new Set((env.PLANTSTORE_TOKENS ?? "").split(",").filter((token) => token.length > 0));
  return { port, dbPath: env.DB_PATH ?? ":memory:", tokens };
}

/** The runner waits for this line on stdout (every baseline prints it once it listens). */
export function announceListening(name: string, port: number): void {
  console.log(JSON.stringify({ msg: "listening", baseline: name, url: `http://127.0.0.1:${port}` }));
}
