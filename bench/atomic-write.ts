// Reports and profiles are written whole or not at all: into a temp file beside the target, flushed,
// then renamed over it (rename is atomic within a filesystem), so a reader never sees half a file and an
// interrupted bench leaves the previous file intact.
import { randomBytes } from 'node:crypto';
import { access, constants, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'w', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Fails fast, before a long run, when `path` could not be written at the end. */
export async function checkWritableTarget(path: string): Promise<string | undefined> {
  try {
    await access(dirname(path), constants.W_OK);
    return undefined;
  } catch {
    return `the directory ${dirname(path)} does not exist or is not writable`;
  }
}
