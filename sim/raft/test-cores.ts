// Shared helpers for the RaftCore tests (not exported from index.ts): a network-less cluster of
// cores whose messages are pumped by hand, so each test controls delivery.
import { expect } from 'vitest';
import { RandomStream } from '../kernel/rng.js';
import { raftConfig, type RaftConfig } from './config.js';
import { hup } from './elections.js';
import type { RaftMessage } from './message.js';
import { RaftCore } from './raft.js';
import { EMPTY_HARD_STATE, type HardState, type LogEntry } from './types.js';

export type Core = RaftCore<string>;

export function makeCore(id: string, voters: string[], options: { config?: Partial<RaftConfig>; hardState?: HardState; entries?: LogEntry<string>[]; trace?: string[] } = {}): Core {
  const core = new RaftCore<string>({
    id,
    voters,
    config: raftConfig(options.config),
    random: new RandomStream(`raft/${id}/election`, `seed-${id}`),
    record: (kind, fields) => options.trace?.push(`${id} ${kind} ${JSON.stringify(fields)}`),
    entryBytes: () => 64,
    hardState: options.hardState ?? EMPTY_HARD_STATE,
    entries: options.entries ?? [],
    applied: 0,
    bootstrap: options.entries === undefined,
  });
  // The node applies the bootstrap's conf changes in its first Ready; until then raft refuses to campaign.
  core.log.applied = core.log.committed;
  return core;
}

export function cluster(count = 3, config: Partial<RaftConfig> = {}): Map<string, Core> {
  const ids = ['a', 'b', 'c', 'd', 'e'].slice(0, count);
  return new Map(ids.map((id) => [id, makeCore(id, ids, { config })]));
}

/** Delivers messages until none are left (or `keep` filters them out); returns what was delivered. */
export function pump(cores: Map<string, Core>, keep: (m: RaftMessage<string>) => boolean = () => true): RaftMessage<string>[] {
  const delivered: RaftMessage<string>[] = [];
  for (let round = 0; round < 1000; round++) {
    const batch = [...cores.values()].flatMap((core) => core.msgs.splice(0));
    if (batch.length === 0) return delivered;
    for (const m of batch) {
      if (!keep(m)) continue;
      delivered.push(m);
      cores.get(m.to)?.step(m);
    }
  }
  throw new Error('pump: messages never stopped');
}

export function entry(index: number, term: number, data: string | null = `e${index}`): LogEntry<string> {
  return { type: 'normal', index, term, data };
}

export function electA(cores: Map<string, Core>): Core {
  const a = cores.get('a')!;
  hup(a, false);
  pump(cores);
  expect(a.role).toBe('leader');
  return a;
}
