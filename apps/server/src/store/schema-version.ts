/**
 * A database migrated by a newer version of the server: this code does not know its tables, and
 * writing them could lose what the newer version keeps there. Stop at start, naming both versions
 * (the same rule on SQLite and PostgreSQL; the versions are each backend's own).
 */
export function assertNotNewer(databaseVersion: number, codeVersion: number): void {
  if (databaseVersion > codeVersion) throw new SchemaNewerError(databaseVersion, codeVersion);
}

export class SchemaNewerError extends Error {
  override readonly name = "SchemaNewerError";
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `the database schema is version ${databaseVersion}, newer than this server's ${codeVersion}: ` +
        "run the version that migrated it, or restore the backup taken before the upgrade",
    );
  }
}
