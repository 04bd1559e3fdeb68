import { changeFromRow } from "../change-rows.js";
import type { ChangeBounds, ChangeEntry, ChangeLog } from "../storage.js";
import type { GroupCommit } from "./group-commit.js";
import type { Reader } from "./reader.js";

/** The change log in SQLite: written by the writer thread's batches, read on the reader thread. */
export class SqliteChangeLog implements ChangeLog {
  constructor(
    private readonly reader: Reader,
    private readonly groupCommit: GroupCommit,
  ) {}

  async after(cursor: bigint, limit: number): Promise<ChangeEntry[]> {
    return (await this.reader.read("changes", cursor, limit)).map(changeFromRow);
  }

  async bounds(): Promise<ChangeBounds> {
    const { first, last } = await this.reader.read("changeBounds");
    return { first: first ?? undefined, last };
  }

  prune(before: number, limit: number): Promise<number> {
    return this.groupCommit.pruneChanges(before, limit);
  }
}
