// Lint rules that carry the house laws of ARCHITECTURE.md, as errors:
// - determinism: core/ and sim/ take time, randomness and timers only through ports;
// - layering: core/ imports only core/ (and pure npm packages), sim/ imports core/, scenarios/ core/ and sim/.
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
      'no-restricted-imports': ['error', layer(
        ['**/sim/**', '**/src/**', '**/viz/**', '**/bench/**', '**/scenarios/**', 'etcd3', 'seedrandom', 'commander', 'tsx', 'vitest'],
        'core/ imports only core/ and pure packages (docs/architecture.md, Layers).',
      )],
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
    files: ['src/web/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'src/web/ runs in the browser: no node built-ins.' }] }],
    },
  },
  {
    files: ['bin/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
