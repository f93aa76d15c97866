// The fence rule (ADR-16, ADR-17): whether a resource accepts a write that presents `token`, given its
// high-water mark for the record (the highest token it has accepted there, if any). The resource must
// decide this atomically with the write and raise the mark to the token when it accepts. This is the
// one place the rule is written: the simulated resource (sim/world/resource.ts), the checkers
// (core/checkers/fence.ts, lock-rules.ts) and the reference fences (src/fences/, docs/fences/) call it
// or take their SQL comparison from it.
//
// ADR-16's clause is `UPDATE ... SET fence = $token WHERE id = $id AND fence < $token`: strictly above
// the mark (mode `above`). It implies that a holder writes a record once per grant: its second write with
// the same token finds the mark equal to its token and is refused. Mode `at-or-above` (`fence <= $token`)
// lets one grant write a record again and again.
//
// The default stays ADR-16's strict form, for this reason: ADR-02 makes one token one grant, and the
// strict fence is the one that stays safe when that fails. A token can be minted twice: an etcd restore
// with the old cluster token under freshly started arbiters hands out revisions, and so tokens, that
// were already issued (docs/seal-and-epochs.md, "What the seal cannot see"; the restore scenario's
// same-token variants). Two holders then present the same token; `above` lets only the first write
// land, `at-or-above` lets both. A refused repeat is loud and safe (the holder sees the refusal and
// acquires again); an accepted duplicate is silent. Owners whose holders must update one record
// several times under one grant choose `at-or-above` knowingly, in the class pull request.
//
// Either mode keeps what the fence is for (ADR-01): the resource sees the writes of successive grants in
// token order, so a holder paused past its TTL cannot write after the holder that followed it.

export type FenceMode = 'above' | 'at-or-above';

export const FENCE_MODES: readonly FenceMode[] = ['above', 'at-or-above'];

/** ADR-16's clause, `fence < $token`. */
export const DEFAULT_FENCE_MODE: FenceMode = 'above';

/**
 * Whether the fence accepts `token` against `mark` (undefined: nothing accepted on this record yet,
 * so any grant's token is accepted and becomes the mark). Token 0 is never accepted, even on a fresh
 * record: no etcd grant mints it (ADR-02: a revision is at least 1), and an arbiter that fails open hands
 * it to every grant from its memory (ADR-04), which no fenced resource may take. The SQL form agrees: the
 * fence column starts at 0, and `0 < 0` is false.
 */
export function fenceAccepts(mark: bigint | undefined, token: bigint, mode: FenceMode = DEFAULT_FENCE_MODE): boolean {
  if (token <= 0n) return false;
  if (mark === undefined) return true;
  return mode === 'above' ? token > mark : token >= mark;
}

/** The mark after the fence has judged a write: raised to the token when accepted, unchanged when refused. */
export function markAfter(mark: bigint | undefined, token: bigint, mode: FenceMode = DEFAULT_FENCE_MODE): bigint | undefined {
  return fenceAccepts(mark, token, mode) ? token : mark;
}

/**
 * The rule as the SQL comparison of the stored mark with the presented token: `fence < $token` for
 * `above`, `fence <= $token` for `at-or-above` (the same rule read from the column's side). A row's
 * fence column starts at 0, below every token a grant mints (ADR-02: R is a revision, at least 1).
 */
export function sqlMarkComparison(mode: FenceMode): '<' | '<=' {
  return mode === 'above' ? '<' : '<=';
}

/** A mode's name in messages and help: the clause it stands for. */
export function describeFenceMode(mode: FenceMode): string {
  return mode === 'above' ? 'fence < $token (strictly above the mark: one write per grant, ADR-16)' : 'fence <= $token (at or above the mark: a grant may write again)';
}

export function isFenceMode(text: string): text is FenceMode {
  return (FENCE_MODES as readonly string[]).includes(text);
}
