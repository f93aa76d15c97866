import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,sim,scenarios,viz,bench,src}/**/*.test.ts'],
    // Real etcd clusters start in globalSetup-free fixtures per file; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default in run mode is one worker fewer than the cores: one file at a time on this 2-core
    // machine, though most files wait on real etcd, child processes or timers rather than compute (measured:
    // 611 s of test files ran end to end in a 764 s span, never two at once). Two workers keep both cores busy.
    maxWorkers: 2,
    // The CLI runs compiled (bin/js-build.mjs): build it once, before the tests that start it as a process.
    globalSetup: ['src/testing/build-js.global-setup.ts'],
  },
});
