import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_POLICY_DOCUMENTS, readDocumentFiles } from './policy-files.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-policy-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('readDocumentFiles', () => {
  it(`stops at ${MAX_POLICY_DOCUMENTS} documents in all, naming the file that passes the limit (a 241k-document file overflowed the stack)`, async () => {
    const half = join(dir, 'half.yaml');
    const more = join(dir, 'more.yaml');
    await writeFile(half, 'a: 1\n---\n'.repeat(MAX_POLICY_DOCUMENTS / 2));
    await writeFile(more, 'a: 1\n---\n'.repeat(MAX_POLICY_DOCUMENTS / 2 + 1));
    const { documents, unreadable } = await readDocumentFiles([half, more]);
    expect(documents).toHaveLength(MAX_POLICY_DOCUMENTS / 2);
    expect(unreadable).toEqual([{ file: more, message: `brings the documents to ${MAX_POLICY_DOCUMENTS + 1}, above the limit of ${MAX_POLICY_DOCUMENTS} in one check; check fewer files at a time` }]);
    // At the limit itself, everything is read.
    const exactly = join(dir, 'exactly.yaml');
    await writeFile(exactly, 'a: 1\n---\n'.repeat(MAX_POLICY_DOCUMENTS / 2));
    expect((await readDocumentFiles([half, exactly])).documents).toHaveLength(MAX_POLICY_DOCUMENTS);
  });

  it('counts a file with no documents (empty, or comments only) as unreadable, not as a pass', async () => {
    const comments = join(dir, 'comments.yaml');
    await writeFile(comments, '# nothing here\n---\n');
    expect((await readDocumentFiles([comments])).unreadable).toEqual([{ file: comments, message: expect.stringMatching(/^has no documents; an empty or truncated file is not a policy/) }]);
  });
});
