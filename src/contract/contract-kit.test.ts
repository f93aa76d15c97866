// The contract kit's negative controls: each of its checks can fail.
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusal, filesNow, type Fixtures, fixtures } from './contract-kit.js';

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

describe('the contract kit', () => {
  it('fails a command that does not refuse, or refuses without naming the input', async () => {
    await expect(expectRefusal(scratch, ['list'], { code: 2, names: [] })).rejects.toThrow(/expected \+0 to be 2/);
    await expect(expectRefusal(scratch, ['run', 'pause-test', '--seed', 'abc'], { code: 2, names: ['--variant'] })).rejects.toThrow(/to contain '--variant'/);
    await expect(expectRefusal(scratch, ['run', 'pause-test', '--seed', 'abc'], { code: 2, names: [], says: /no such rule/ })).rejects.toThrow(/to match/);
  });

  it('fails when a file is left behind', async () => {
    const unchanged = await filesNow(scratch);
    await unchanged('nothing yet');
    await writeFile(join(scratch.dir, 'left-behind.json'), '{}');
    await expect(unchanged('a file written')).rejects.toThrow(/files left behind/);
  });
});
