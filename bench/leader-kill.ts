// `npm run bench:leader-kill -- [--trials N] [--json]`: how long a key stays unavailable when the etcd
// leader is killed or paused under a holder that releases (issue 12), on a real 3-member cluster of
// this machine's etcd (src/testing/etcd-cluster.ts, installed as the tests do). Each trial
// (src/testing/leader-kill-trial.ts) reports, from the fault: the survivors' new leader, the holder's
// release answered (the key free again), and the waiter's grant. The goal is the key free within the
// election timeout + 1.5 s; etcd's default election timeout is 1 s (randomised up to 2 s).
import { parseArgs } from 'node:util';
import { initEtcdLog } from '../src/etcd/index.js';
import { startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { type LeaderFault, type LeaderKillTrial, runLeaderKillTrial } from '../src/testing/leader-kill-trial.js';

const ELECTION_TIMEOUT_MS = 1_000;
const GOAL_MARGIN_MS = 1_500;

const roundMs = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms));

function summary(trials: readonly LeaderKillTrial[]) {
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const released = sorted(trials.filter((t) => 'released' in t.release).map((t) => t.releaseAnsweredAfterMs));
  const granted = sorted(trials.filter((t) => 'token' in t.waiter).map((t) => t.waiterGrantedAfterMs));
  const elected = sorted(trials.flatMap((t) => (t.electedAfterMs === undefined ? [] : [t.electedAfterMs])));
  const at = (values: number[], q: number) => { const v = values[Math.min(values.length - 1, Math.floor(q * values.length))]; return v === undefined ? undefined : Math.round(v); };
  return {
    trials: trials.length,
    releaseFailures: trials.length - released.length,
    releaseAnsweredMs: { p50: at(released, 0.5), max: roundMs(released.at(-1)) },
    waiterGrantedMs: { p50: at(granted, 0.5), max: roundMs(granted.at(-1)) },
    electedMs: { p50: at(elected, 0.5), max: roundMs(elected.at(-1)) },
    goalMs: ELECTION_TIMEOUT_MS + GOAL_MARGIN_MS,
    withinGoal: released.filter((ms) => ms <= ELECTION_TIMEOUT_MS + GOAL_MARGIN_MS).length,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { trials: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } } });
  const count = Number(values.trials);
  if (!Number.isInteger(count) || count < 1 || count > 50) {
    process.stderr.write(`--trials ${values.trials}: give a whole number of trials per fault, 1..50\n`);
    process.exitCode = 2;
    return;
  }
  const cluster = await startEtcdCluster({ members: 3 });
  try {
    await initEtcdLog(cluster.endpoints);
    const report: Record<LeaderFault, ReturnType<typeof summary>> = {} as Record<LeaderFault, ReturnType<typeof summary>>;
    const all: LeaderKillTrial[] = [];
    for (const fault of ['kill', 'pause'] as const) {
      const trials: LeaderKillTrial[] = [];
      for (let i = 0; i < count; i += 1) trials.push(await runLeaderKillTrial(cluster, fault, `bench-${i}-${Date.now()}`));
      report[fault] = summary(trials);
      all.push(...trials);
    }
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ report, trials: all.map((t) => ({ fault: t.fault, electedAfterMs: t.electedAfterMs, releaseAnsweredAfterMs: t.releaseAnsweredAfterMs, released: 'released' in t.release ? t.release.released : t.release.error, waiterGrantedAfterMs: t.waiterGrantedAfterMs })) })}\n`);
      return;
    }
    for (const [fault, s] of Object.entries(report)) {
      process.stdout.write(
        `leader ${fault}: ${s.trials} trials; new leader after p50 ${s.electedMs.p50} ms (max ${s.electedMs.max}); key free (release answered) after p50 ${s.releaseAnsweredMs.p50} ms (max ${s.releaseAnsweredMs.max}); ` +
          `waiter granted after p50 ${s.waiterGrantedMs.p50} ms (max ${s.waiterGrantedMs.max}); ${s.withinGoal}/${s.trials} within the goal of ${s.goalMs} ms; ${s.releaseFailures} releases failed\n`,
      );
    }
  } finally {
    await cluster.stop();
  }
}

await main();
