// The one helper for type tests (`*.test-d.ts`, checked by vitest's typecheck mode), as ts-rest has
// it: `type _ = Expect<Equal<Actual, Expected>>` fails to compile unless the two types are identical.

/** true when A and B are the same type (not merely assignable either way; any equals only any). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when T is true: wrap an Equal in it. */
export type Expect<T extends true> = T;
