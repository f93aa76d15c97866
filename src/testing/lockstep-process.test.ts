// waitForStderr says how a process ended when it ended before printing what was awaited (issue 32: the gate
// read "exited before printing /serving lock.v1/" with empty stderr, and nothing said it was its own kill -9).
import { describe, expect, it } from 'vitest';
import { startLockstep } from './lockstep-process.js';

describe('startLockstep().waitForStderr on a process that ends first', () => {
  it('killed before it printed anything: names the signal and says stderr was empty', async () => {
    const run = startLockstep(['serve', '--endpoints', '127.0.0.1:1', '--classes', '/nonexistent', '--grants', '/nonexistent']);
    const waiting = run.waitForStderr(/serving lock\.v1/);
    run.child.kill('SIGKILL'); // at once: node has not run the bin yet, so nothing was printed
    await expect(waiting).rejects.toThrow(/exited \(SIGKILL\) before printing .*stderr: \(empty\)/);
  });

  it('control: one that exits on its own with a code prints that code and its stderr', async () => {
    const run = startLockstep(['serve']);
    await expect(run.waitForStderr(/serving lock\.v1/)).rejects.toThrow(/exited \(exit code 2\) before printing [^\n]*stderr:\n.*--endpoints is required/);
  });
});
