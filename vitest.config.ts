import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,sim,scenarios,viz,bench,src}/**/*.test.ts'],
    // Real etcd clusters start in globalSetup-free fixtures per file; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The CLI runs compiled (bin/js-build.mjs): build it once, before the tests that start it as a process.
    globalSetup: ['src/testing/build-js.global-setup.ts'],
  },
});
