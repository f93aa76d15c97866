// The LockLog conformance suite: one suite, run against real etcd (src/etcd/etcd-lock-log.test.ts) and
// against the simulated cluster (sim/), so the simulator is held to etcd's behaviour (ARCHITECTURE.md,
// sim/). It checks only what etcd documents or its source fixes (design/etcd-behaviour.md sections 1
// and 4), never a quirk of one client library.
//
// Requirements on the target: a throwaway cluster with default timing (minimum lease TTL 2 s) that
// nothing else writes to while the suite runs. The suite compacts the cluster's history near its end.
// Every test uses its own key prefix, tagged with the cluster's revision when the suite started, so a
// rerun against the same cluster does not trip over an earlier run's keys.
import { afterAll, beforeAll, describe } from 'vitest';
import { type ConformanceTarget, type SuiteContext } from './conformance/context.js';
import { registerCompactionCases, registerHeaderCases } from './conformance/cluster-cases.js';
import { registerLeaseCases } from './conformance/lease-cases.js';
import { registerRevisionCases } from './conformance/revision-cases.js';
import { registerTxnCases } from './conformance/txn-cases.js';
import { registerWatchCases } from './conformance/watch-cases.js';

export type { ConformanceTarget } from './conformance/context.js';

const KEY_ROOT = '/lockstep-conformance';

export function describeLockLogConformance(name: string, factory: () => Promise<ConformanceTarget>): void {
  describe(`LockLog conformance: ${name}`, () => {
    let target: ConformanceTarget | undefined;
    let runTag = '';
    const uses = new Map<string, number>();

    beforeAll(async () => {
      target = await factory();
      runTag = `r${(await target.log.range({ key: `${KEY_ROOT}/` })).header.revision}`;
    });

    afterAll(async () => {
      await target?.close();
      target = undefined;
    });

    const ctx: SuiteContext = {
      target: () => {
        if (target === undefined) throw new Error('the conformance target was not created (see the beforeAll error above)');
        return target;
      },
      prefix: (caseName) => {
        // A retried test (or two cases sharing a name) gets fresh keys.
        const use = (uses.get(caseName) ?? 0) + 1;
        uses.set(caseName, use);
        return `${KEY_ROOT}/${runTag}/${caseName}${use === 1 ? '' : `-${use}`}/`;
      },
    };

    describe('txn', () => registerTxnCases(ctx));
    describe('revisions', () => registerRevisionCases(ctx));
    describe('leases', () => registerLeaseCases(ctx));
    describe('watch', () => registerWatchCases(ctx));
    describe('headers', () => registerHeaderCases(ctx));
    describe('compaction', () => registerCompactionCases(ctx));
  });
}
