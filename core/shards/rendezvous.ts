// ADR-09: highest-random-weight (rendezvous) hashing. Each key goes to the shard with the highest
// score hash(shard, key); adding a shard moves exactly the keys whose new top score is that shard,
// about 1/(N+1) of them, and no key moves between two old shards.
import { hash53 } from './hash.js';

export function rendezvousScore(shardId: string, homingUnit: string): number {
  return hash53(`${shardId}\u0000${homingUnit}`);
}

/** The shard with the highest score; ties (astronomically rare) go to the smaller id, so all agree. */
export function rendezvousPick(shardIds: readonly string[], homingUnit: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const id of shardIds) {
    const score = rendezvousScore(id, homingUnit);
    if (score > bestScore || (score === bestScore && best !== undefined && id < best)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Every shard in the order a unit tries them: highest score first, ties to the smaller id (as rendezvousPick),
 * so a client fails over to the same next shard as every other client (ADR-14/18).
 */
export function rendezvousOrder<T>(shards: readonly T[], idOf: (shard: T) => string, homingUnit: string): T[] {
  return [...shards].sort((a, b) => rendezvousScore(idOf(b), homingUnit) - rendezvousScore(idOf(a), homingUnit) || (idOf(a) < idOf(b) ? -1 : 1));
}
