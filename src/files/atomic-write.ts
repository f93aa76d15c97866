// Every file lockstep writes (run artifacts, HTML reports, explorer failures, bench reports and profiles)
// is written whole or not at all: into a temp file beside the target (same directory, so the same
// filesystem), flushed, then renamed over it (rename is atomic within a filesystem). A reader never sees
// half a file, an interrupted write leaves the previous file intact, and no temp file outlives a write:
// it is removed when the write fails, and the CLI's error boundary (src/cli.ts) removes any still in
// flight when a command fails in another way.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OperationError } from '../cli-errors.js';

const inFlight = new Set<string>();

export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  inFlight.add(temp);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new OperationError('write', path, error);
  } finally {
    inFlight.delete(temp);
  }
}

/** Removes the temp files of writes still in flight (the error boundary's cleanup; synchronous, so it also works on the way out). */
export function removeTempFiles(): void {
  for (const temp of inFlight) rmSync(temp, { force: true });
  inFlight.clear();
}
