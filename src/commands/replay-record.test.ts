// `lockstep replay` shows the checks of the run it executed and says when the artifact's recorded
// verdict or checks differ, with its own exit code (issue 18, item 1). The forged artifact is issue 18's
// (src/testing/forged-artifact.ts); the honest one it was made from is the negative control.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../scenarios/history.js';
import { FORGED_REPLAY, forgedArtifactText, honestFailingRun } from '../testing/forged-artifact.js';
import { runCli } from '../testing/run-cli.js';
import { REPLAY_RECORD_DIFFERS } from './run.js';

let honestFile: string;
let forgedFile: string;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-replay-record-'));
  const honest = await honestFailingRun();
  honestFile = join(dir, 'honest.json');
  forgedFile = join(dir, 'incident-4711.json');
  await writeFile(honestFile, toJson(honest, 2));
  await writeFile(forgedFile, forgedArtifactText(honest));
});

describe('lockstep replay and the artifact\'s record', () => {
  it(`flags a forged verdict: prints the replay's FAIL, says the artifact says ok, and exits ${REPLAY_RECORD_DIFFERS}`, async () => {
    const run = await runCli('replay', forgedFile);
    expect(run.code).toBe(REPLAY_RECORD_DIFFERS);
    const out = run.out.join('\n');
    expect(out).toMatch(/^ {2}FAIL fence +1 violation/m);
    expect(out).toContain('replay: same trace hash');
    expect(out).toContain('replay: RECORD DIFFERS: this artifact says ok; replaying it gives VIOLATION: fence (fence: the artifact says ok, the replay FAIL)');
    expect(out).not.toContain(FORGED_REPLAY);
  });

  it('says the same in --json: recordMatches false, the verdicts, each differing check; the checks are the replay\'s', async () => {
    const run = await runCli('replay', forgedFile, '--json');
    expect(run.code).toBe(REPLAY_RECORD_DIFFERS);
    const result = JSON.parse(run.out.at(-1) ?? '{}') as Record<string, unknown> & { checks: { name: string; ok: boolean }[] };
    expect(result).toMatchObject({ sameTraceHash: true, agreement: 'same-trace', recordMatches: false, recordedVerdict: 'ok', checkDifferences: ['fence: the artifact says ok, the replay FAIL'], ok: false });
    expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['fence']);
  });

  it('exits 0 on the honest artifact it was forged from (a failing run, reproduced)', async () => {
    const run = await runCli('replay', honestFile, '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, recordMatches: true, recordedVerdict: 'VIOLATION: fence', checkDifferences: [] });
  });

  it(`documents exit ${REPLAY_RECORD_DIFFERS} in replay --help`, async () => {
    const help = (await runCli('replay', '--help')).out.join(' ').replace(/\s+/g, ' ');
    expect(help).toContain(`${REPLAY_RECORD_DIFFERS} the artifact's recorded verdict or checks differ from the replay's`);
  });
});
