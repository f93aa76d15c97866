// Lint rules that carry the house laws of ARCHITECTURE.md, as errors:
// - determinism: core/ and sim/ take time, randomness and timers only through ports;
// - layering: core/ imports only core/ (and pure npm packages), sim/ imports core/, scenarios/ core/ and sim/,
//   bench/ all of those and src/, and nothing imports bench/ but `lockstep bench`'s adapter;
// - size: files under 400 lines and functions under 70 (STYLE.md, "Small and named").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nondeterministicGlobals = [
  'Date', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval',
  'clearImmediate', 'performance', 'process', 'crypto', 'queueMicrotask',
].map((name) => ({ name, message: `${name} is not deterministic: take it through a port (Clock, Random) wired in src/ (docs/architecture.md, Determinism rule).` }));

const noMathRandom = [{ object: 'Math', property: 'random', message: 'Math.random is not seeded: use the Random port (docs/architecture.md, Determinism rule).' }];
// ECMAScript leaves these implementation-approximated: engines round them differently, so a seed would
// give another trace in a browser than in node (sim/kernel/portable-math.ts has ln and exp).
const engineApproximatedMath = ['log', 'exp', 'pow', 'log1p', 'expm1', 'log2', 'log10', 'cbrt', 'hypot', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh']
  .map((property) => ({ object: 'Math', property, message: `Math.${property} is implementation-approximated (engines differ in the last bits): use sim/kernel/portable-math.ts so one seed gives one trace everywhere.` }));

const layer = (forbidden, why) => ({
  patterns: [
    { group: forbidden, message: why },
    { group: ['node:*'], message: 'This layer runs in a browser worker and in the simulator: no node built-ins.' },
  ],
});

const coreForbidden = ['**/sim/**', '**/src/**', '**/viz/**', '**/bench/**', '**/scenarios/**', 'etcd3', 'seedrandom', 'commander', 'tsx', 'vitest'];
const noBench = { group: ['**/bench/**'], message: 'Nothing imports bench/ but src/commands/bench.ts, the adapter of `lockstep bench`: move what both need down (issue 34).' };

export default tseslint.config(
  { ignores: ['node_modules/**', 'src/gen/**', 'dist/**', 'coverage/**', '.lockstep-tmp/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // STYLE.md, "Small and named": files of a few hundred lines, functions of about 70 (TigerBeetle's limit).
    // Blank lines do not count. A file's comments do (issue 34): a file that needs more than 400 lines of code
    // and its explanation holds more than one concept. Inside a function comments do not count, so a rule
    // explained where it lives costs nothing. Tests are exempt (a table of cases is long by nature);
    // generated code (src/gen) is ignored above.
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: false }],
      'max-lines-per-function': ['error', { max: 70, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Test kits are tests: a conformance suite's case table and a fixture artifact are long by nature.
    files: ['src/testing/**/*.ts', 'viz/**/test-fixtures.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['core/**/*.ts', 'sim/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-globals': ['error', ...nondeterministicGlobals],
      'no-restricted-properties': ['error', ...noMathRandom, ...engineApproximatedMath],
    },
  },
  {
    files: ['core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', layer(coreForbidden, 'core/ imports only core/ and pure packages (docs/architecture.md, Layers).')],
    },
  },
  {
    // Inside core the audit reads what the arbiter writes (ADR-21): the arbiter, the client and the ports sit
    // below it and never import it (the release marker, which the arbiter writes, lives in core/arbiter).
    files: ['core/arbiter/**/*.ts', 'core/client/**/*.ts', 'core/ports/**/*.ts', 'core/shards/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          ...layer(coreForbidden, 'core/ imports only core/ and pure packages (docs/architecture.md, Layers).').patterns,
          { group: ['**/audit/**', '../audit/*'], message: 'The audit sits above the arbiter, the client and the ports (ADR-21): move what both need down into core/arbiter or core/ports.' },
        ],
      }],
    },
  },
  {
    files: ['sim/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', layer(
        ['**/src/**', '**/viz/**', '**/bench/**', '**/scenarios/**', 'etcd3', 'commander', 'tsx'],
        'sim/ imports only core/ (docs/architecture.md, Layers).',
      )],
    },
  },
  {
    files: ['scenarios/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**', '**/viz/**', '**/bench/**', 'etcd3'], message: 'scenarios/ imports core/ and sim/ only (docs/architecture.md, Layers).' }] }],
    },
  },
  {
    files: ['viz/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', layer(
        ['**/sim/**', '**/src/**', '**/bench/**', '**/scenarios/**', 'etcd3', 'commander', 'tsx', 'vitest'],
        'viz/ reads data (run artifacts, planner results) and imports only core/ types and its own modules (docs/architecture.md, Layers).',
      )],
    },
  },
  {
    // bench/ measures everything below it; nothing below imports it back except `lockstep bench`'s thin
    // adapter, which only parses flags and prints the report (issue 34).
    files: ['src/**/*.ts', 'bin/**/*.mjs'],
    ignores: ['**/*.test.ts', 'src/commands/bench.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noBench] }],
    },
  },
  {
    files: ['src/web/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'src/web/ runs in the browser: no node built-ins.' }, noBench] }],
    },
  },
  {
    files: ['bench/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/viz/**'], message: 'bench/ imports core/, sim/, scenarios/ and src/ (docs/architecture.md, Layers).' }] }],
    },
  },
  {
    files: ['bin/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
