// Declarations of bin/lock-bundle.mjs for the TypeScript that imports it (its test).
/** The bundle `lockstep lock <args>` runs, relative to dist/js: --endpoints's, or --arbiter's with or without class files. */
export function lockBundleFor(args: readonly string[]): string;
export const ETCD3_LOAD_OPTIONS: Record<string, unknown>;
export function etcd3ProtoJson(etcd3Lib: string): Promise<string>;
export function rewrite(path: string, replacements: readonly (readonly [string, string])[]): Promise<{ contents: string; loader: 'js' }>;
/** Builds every mode's bundle; the sources the lock runs from, relative to `root`. */
export function buildLockBundle(root: string, outDir: string): Promise<string[]>;
/** The [text, replacement] pairs that make @grpc/proto-loader's reflection descriptors lazy in the bundle. */
export const LAZY_DESCRIPTORS: readonly (readonly [string, string])[];
/** The text before and after a bundle's code: its file is one function expression of a CommonJS module's arguments. */
export const MODULE_WRAPPER: readonly [string, string];
/** Throws, naming the file, if a byte of `file` is not ASCII. */
export function assertAscii(file: string): void;
/** In dist/js: each command bundle's modules, by bundle path. */
export const BUNDLE_CONTENTS: string;
