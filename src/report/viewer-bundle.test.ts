import { mkdtemp, readFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_REFERENCE } from './html.js';
import { isStale, viewerBundle } from './viewer-bundle.js';

describe('report viewer bundle', () => {
  it('builds one self-contained script on demand, reports progress, and reuses a fresh cache', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-viewer-'));
    const path = join(dir, 'viewer.js');
    expect(await isStale(path)).toBe(true);
    const progress: string[] = [];
    const built = await viewerBundle({ path, progress: (line) => progress.push(line) });
    expect(progress[0]).toMatch(/^building the report viewer…/);
    // One classic script: no module syntax left to load, the mount code and its data ids inside, nothing to fetch.
    expect(built).not.toMatch(/^\s*import\s|\bimport\(/m);
    expect(built).toContain('lockstep-run');
    expect(built).toContain('data-kind');
    expect(built).not.toMatch(EXTERNAL_REFERENCE);
    expect(await readFile(path, 'utf8')).toBe(built);

    expect(await isStale(path)).toBe(false);
    const again: string[] = [];
    await viewerBundle({ path, progress: (line) => again.push(line) });
    expect(again).toEqual([]);
    // A cache older than the sources is rebuilt.
    await utimes(path, new Date(0), new Date(0));
    expect(await isStale(path)).toBe(true);
  });
});
