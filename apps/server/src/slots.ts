/**
 * Things under way (answers being written, reads waiting for the reader thread), each in a numbered
 * slot that is emptied when it ends and then reused.
 *
 * Not a `Set` or a `Map`: measured on Node 24, a `Set` to which every request added its answer and
 * from which it deleted it made V8 keep nearly every answer, and everything it references, past its
 * end until the next full collection (11–12 MB promoted per young-generation collection under 50
 * connections, 40–57 ms pauses, a 300 MiB peak RSS); with slots the old generation stays flat. The
 * likely cause: a table that churns is rehashed into new ones, and an old one, already in the old
 * generation, still points at what was under way then. An emptied slot points at nothing.
 */
export class Slots<T> {
  readonly #slots: Array<T | undefined> = [];
  readonly #free: number[] = [];
  #size = 0;

  /** How many slots are full. */
  get size(): number {
    return this.#size;
  }

  /** Puts `value` in a free slot; returns the slot's number. */
  put(value: T): number {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = value;
    this.#size++;
    return slot;
  }

  /** What slot `slot` holds, if anything. */
  at(slot: number): T | undefined {
    return this.#slots[slot];
  }

  /** Empties slot `slot`; returns what it held. */
  take(slot: number): T | undefined {
    const value = this.#slots[slot];
    if (value === undefined) return undefined;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
    this.#size--;
    return value;
  }

  /** What the full slots hold, in slot order. */
  values(): T[] {
    return this.#slots.filter((value): value is T => value !== undefined);
  }

  /** Empties every slot; returns what they held. */
  takeAll(): T[] {
    const values = this.values();
    this.#slots.length = 0;
    this.#free.length = 0;
    this.#size = 0;
    return values;
  }
}
