// ADR-09's promise for a move, read from the grants of a run: each moved key's first token on its new
// shard is above its last token on the old one (the destination's epoch was advanced above the source's).
// The shard-move scenario's verdict on it (one concept, out of the scenario's file).
import type { GrantRecord } from '../core/checkers/index.js';

export interface MovedKeyTokens {
  /** Moved keys whose first token on the destination rose above their last on the source. */
  readonly rose: number;
  /** Moved keys whose token went backwards across the move. */
  readonly fell: number;
  /** The highest last-source grant, and the lowest first-destination grant, over the moved keys. */
  readonly lastSource: GrantRecord | undefined;
  readonly firstDestination: GrantRecord | undefined;
}

/** Per moved key: its first token on `destination` against its last on any other cluster before it. */
export function movedKeyTokens(grants: readonly GrantRecord[], moved: ReadonlySet<string>, destination: string): MovedKeyTokens {
  let rose = 0;
  let fell = 0;
  let lastSource: GrantRecord | undefined;
  let firstDestination: GrantRecord | undefined;
  for (const key of moved) {
    const ofKey = grants.filter((g) => g.key === key).sort((a, b) => a.grantedAtMs - b.grantedAtMs);
    const there = ofKey.find((g) => g.cluster === destination);
    const last = ofKey.filter((g) => g.cluster !== destination && (there === undefined || g.grantedAtMs < there.grantedAtMs)).at(-1);
    if (there === undefined || last === undefined) continue;
    if (there.token > last.token) rose += 1;
    else fell += 1;
    if (lastSource === undefined || last.token > lastSource.token) lastSource = last;
    if (firstDestination === undefined || there.token < firstDestination.token) firstDestination = there;
  }
  return { rose, fell, lastSource, firstDestination };
}
