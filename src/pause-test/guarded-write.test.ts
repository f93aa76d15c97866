import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FencingToken } from '../../core/units.js';
import { describeWrite, openGuardedWrite, redactUrl } from './guarded-write.js';

describe('the guarded write under test', () => {
  it('never shows a password of a connection URL', () => {
    expect(redactUrl('postgresql://app:s3cret@db:5432/ledger')).toBe('postgresql://app:***@db:5432/ledger');
    expect(redactUrl('sh read.sh postgresql://app:s3cret@db/x and postgres://b:p@h/y')).toBe('sh read.sh postgresql://app:***@db/x and postgres://b:***@h/y');
    expect(redactUrl('postgresql://app@db/ledger')).toBe('postgresql://app@db/ledger');
  });

  it('names the fence and its clause', () => {
    expect(describeWrite({ kind: 'postgres', url: 'postgresql://x/db', table: 't', record: 'k', mode: 'above' })).toMatch(/^PostgreSQL reference fence, table t record "k", one UPDATE with fence < \$token/);
    expect(describeWrite({ kind: 'file', dir: '/r', mode: 'at-or-above' })).toMatch(/^file register \/r, fence <= \$token/);
  });

  it('runs the file register with its "checked" pause point, and reads it back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-guarded-'));
    try {
      const write = await openGuardedWrite({ kind: 'file', dir: join(dir, 'r'), mode: 'above' });
      const points: string[] = [];
      expect(await write.write(7n as FencingToken, 'v7', async (p) => void points.push(p))).toEqual({ answer: 'accepted' });
      expect(await write.write(7n as FencingToken, 'again', async (p) => void points.push(p))).toEqual({ answer: 'refused' });
      expect([points, await write.read()]).toEqual([['checked'], { value: 'v7', detail: 'version 7' }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
