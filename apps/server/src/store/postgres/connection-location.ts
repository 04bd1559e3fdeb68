/**
 * Where the data lives, for logs: `postgres://user@host:port/database`. The password and the
 * query string (which may carry `password=` or `sslpassword=`) are never included.
 */
export function describePostgresLocation(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
    const port = url.port ? `:${url.port}` : "";
    return `postgres://${user}${url.hostname}${port}${url.pathname}`;
  } catch {
    return "postgres://(unparsable connection string)";
  }
}
