// Where a command will write when it is done, checked before it starts (an artifact after a run, a report
// after a build, explorer failures after thousands of runs), so a bad path is bad input (exit 2) that costs
// nothing, not a failure at the end that loses the work. The write itself is atomic-write.ts's.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Why `path` cannot take the file, in words that follow the path ("is a directory; ..."), or undefined. */
export async function outputFileProblem(path: string): Promise<string | undefined> {
  if (path.trim() === '') return 'is empty; give a file name, e.g. run.json';
  const target = await stat(path).catch(() => undefined);
  if (target?.isDirectory() === true) return `is a directory; give a file in it, e.g. ${join(path, 'run.json')}`;
  const dir = dirname(resolve(path));
  return writableDirectoryProblem(dir, `its directory ${dir} `);
}

/** Why `dir` cannot hold the files (it is made, with its parents, if missing), or undefined. */
export async function outputDirectoryProblem(dir: string): Promise<string | undefined> {
  if (dir.trim() === '') return 'is empty; give a directory, e.g. .lockstep-tmp/explore';
  let existing = resolve(dir);
  // The nearest part of the path that exists must be a directory we may write into.
  for (;;) {
    const found = await stat(existing).catch(() => undefined);
    if (found !== undefined) break;
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  return writableDirectoryProblem(existing, existing === resolve(dir) ? '' : `${existing}, on its path, `);
}

/** `subject` starts the sentence ("its directory /x ", "/x, on its path, "); empty when the path itself is meant. */
async function writableDirectoryProblem(dir: string, subject: string): Promise<string | undefined> {
  const found = await stat(dir).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (found instanceof Error) return found.code === 'ENOENT' ? `${subject}does not exist; create it or choose another path` : `${subject}cannot be read (${found.code ?? found.message})`;
  if (!found.isDirectory()) return `${subject}is a file, not a directory; choose another path`;
  const writable = await access(dir, constants.W_OK).then(
    () => true,
    () => false,
  );
  return writable ? undefined : `${subject}is not writable; choose another path`;
}
