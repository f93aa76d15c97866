// Shared helpers for this folder's tests (not exported from index.ts).
import { Kernel } from '../kernel/kernel.js';
import type { RaftConfig } from './config.js';
import { RaftGroup, type RaftGroupOptions } from './group.js';
import type { LogEntry } from './types.js';

export function memberNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `etcd-${i + 1}`);
}

export interface TestWorld {
  readonly kernel: Kernel;
  readonly group: RaftGroup<string>;
}

/** `yieldToHost` comes from the test file: host scheduling is wired by tests, never by sim/ code. */
export function testWorld(
  yieldToHost: () => Promise<void>,
  seed: string,
  count: number,
  config: Partial<RaftConfig> = {},
  extra: Omit<Partial<RaftGroupOptions<string>>, 'kernel' | 'members' | 'config'> = {},
): TestWorld {
  const kernel = new Kernel({ seed, yieldToHost, trace: { keepRecords: true } });
  const group = new RaftGroup<string>({ kernel, members: memberNames(count), config, ...extra });
  return { kernel, group };
}

/** The data of a member's applied normal entries, in order (empty entries and conf changes left out). */
export function appliedData(entries: readonly LogEntry<string>[]): string[] {
  const out: string[] = [];
  for (const entry of entries) if (entry.type === 'normal' && entry.data !== null) out.push(entry.data);
  return out;
}

export function recordsOf(kernel: Kernel, kind: string, process?: string): { timeMs: number; process: string; fields: Readonly<Record<string, unknown>> }[] {
  return kernel.trace.records().filter((r) => r.kind === kind && (process === undefined || r.process === process));
}
