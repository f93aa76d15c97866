// Declarations of bin/lock-bundle.mjs for the TypeScript that imports it (its test).
export const LOCK_BUNDLE: string;
export const ETCD3_LOAD_OPTIONS: Record<string, unknown>;
export function etcd3ProtoJson(etcd3Lib: string): Promise<string>;
export function rewrite(path: string, replacements: readonly (readonly [string, string])[]): Promise<{ contents: string; loader: 'js' }>;
export function buildLockBundle(root: string, outDir: string): Promise<void>;
