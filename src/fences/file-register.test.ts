import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRegister } from './file-register.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-register-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('the file register fence (ADR-16)', () => {
  it('takes a write only above its mark (strict by default), and reads back the newest', async () => {
    const register = new FileRegister(join(dir, 'record'));
    expect(await register.read()).toBeUndefined();
    const answers = [];
    for (const [token, value] of [[5n, 'a'], [9n, 'b'], [7n, 'stale'], [9n, 'again']] as const) answers.push(await register.write(token, value));
    expect(answers).toEqual([true, true, false, false]);
    expect(await register.read()).toEqual({ token: 9n, value: 'b' });
  });

  it('at-or-above: one grant writes the record again, a lower token still cannot', async () => {
    const register = new FileRegister(join(dir, 'record'), 'at-or-above');
    expect([await register.write(9n, 'b'), await register.write(9n, 'b2'), await register.write(7n, 'stale')]).toEqual([true, true, false]);
    expect(await register.read()).toEqual({ token: 9n, value: 'b2' });
  });

  it('refuses a writer frozen between its check and its publication once a newer one has written, and never shows its value', async () => {
    const register = new FileRegister(join(dir, 'record'));
    let frozen: (() => void) | undefined;
    const stale = register.write(5n, 'stale', () => new Promise<void>((thaw) => (frozen = thaw)));
    while (frozen === undefined) await new Promise((done) => setImmediate(done));
    expect(await register.write(9n, 'newer')).toBe(true);
    frozen();
    expect(await stale).toBe(false);
    expect(await register.read()).toEqual({ token: 9n, value: 'newer' });
  });

  it('negative control: without the look after publishing, that frozen writer would be told it wrote', async () => {
    // Its version file is there (nobody reads it): only the register's second look tells it the truth.
    const register = new FileRegister(join(dir, 'record'));
    let frozen: (() => void) | undefined;
    const stale = register.write(5n, 'stale', () => new Promise<void>((thaw) => (frozen = thaw)));
    while (frozen === undefined) await new Promise((done) => setImmediate(done));
    await register.write(9n, 'newer');
    frozen();
    await stale;
    expect((await readdir(join(dir, 'record'))).sort()).toEqual(['v-00000000000000000005', 'v-00000000000000000009']);
  });

  it('keeps no older versions behind an accepted write, and no temporary files', async () => {
    const register = new FileRegister(join(dir, 'record'));
    for (const token of [1n, 2n, 3n]) await register.write(token, String(token));
    expect(await readdir(join(dir, 'record'))).toEqual(['v-00000000000000000003']);
  });
});
