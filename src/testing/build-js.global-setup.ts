// Vitest's global setup: brings dist/js up to date once before any test file runs (issue 16), so the
// tests that start `lockstep` as a process (src/testing/lockstep-process.ts) run the sources under test
// and do not each race to rebuild a stale tree.
import { buildJs, sourceState, staleReason } from '../../bin/js-build.mjs';

export default async function setup(): Promise<void> {
  const state = sourceState();
  if (staleReason(state) !== undefined) await buildJs(state);
}
