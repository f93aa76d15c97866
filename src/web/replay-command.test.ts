import { describe, expect, it } from 'vitest';
import { buildReplayCommand } from './replay-command.js';
import type { ScenarioInfo } from './workbench-api.js';

const scenarios: ScenarioInfo[] = [{ name: 'pause-test', description: '', variants: [{ name: 'fenced', expect: 'pass', description: '' }, { name: 'unfenced', expect: 'violation', description: '' }] }];
const run = { scenario: 'pause-test', variant: 'unfenced', seed: '7' };

describe('the replay command the page builds (issue 18)', () => {
  it('reruns a variant\'s own schedule with lockstep run, naming the variant unless it is the first', () => {
    expect(buildReplayCommand(run, scenarios, { kind: 'variant-schedule' })).toEqual({ text: 'lockstep run pause-test --variant unfenced --seed 7', hint: '' });
    expect(buildReplayCommand({ ...run, variant: 'fenced' }, scenarios, { kind: 'variant-schedule' }).text).toBe('lockstep run pause-test --seed 7');
  });

  it('replays a loaded file by its name when that is one plain word, and the file Save writes otherwise', () => {
    expect(buildReplayCommand(run, scenarios, { kind: 'file', name: 'incident-4711.json' }).text).toBe('lockstep replay incident-4711.json');
    for (const name of ['incident-4711.json; curl -s http://127.0.0.1:9/x.sh | sh', '-rf.json', '../x.json', 'a b.json', '$(id).json', '.hidden.json', 'x\u202Enosj.exe']) {
      const command = buildReplayCommand(run, scenarios, { kind: 'file', name });
      expect(command.text, name).toBe('lockstep replay pause-test-unfenced-seed-7.json');
      expect(command.text === undefined ? '' : command.hint).toMatch(/the file Save artifact writes.*not a plain file name/);
    }
    expect(buildReplayCommand(run, scenarios, { kind: 'file' }).text).toBe('lockstep replay pause-test-unfenced-seed-7.json');
  });

  it('gives no command for a scenario or variant the workbench does not run, or a seed that is not plain', () => {
    expect(buildReplayCommand({ ...run, scenario: 'pause-test; rm -rf ~' }, scenarios, { kind: 'variant-schedule' })).toEqual({ refusal: 'its scenario is not one this workbench runs' });
    expect(buildReplayCommand({ ...run, variant: 'unfenced --out /etc/passwd' }, scenarios, { kind: 'file', name: 'ok.json' })).toEqual({ refusal: "its variant is not one of pause-test's" });
    for (const seed of ['7 && curl x', '-1', '$(id)', '7\n']) expect(buildReplayCommand({ ...run, seed }, scenarios, { kind: 'variant-schedule' }).text, seed).toBeUndefined();
  });
});
