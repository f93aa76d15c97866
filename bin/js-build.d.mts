// Declarations of bin/js-build.mjs for the TypeScript that imports it (tests, vitest's global setup).
export interface SourceState {
  readonly files: readonly string[];
  readonly newestMs: number;
}
export const REPO_ROOT: string;
export const OUT_DIR: string;
export function sourceState(root?: string): SourceState;
export function staleReason(state?: SourceState, outDir?: string): string | undefined;
export function buildJs(state?: SourceState): Promise<void>;
/** Why `lockstep <command>` (lock, serve) cannot run as built (its own inputs, listed by the build), or undefined. */
export function bundleStaleReason(outDir?: string, root?: string, command?: 'lock' | 'serve'): string | undefined;
/** The compiled CLI for `command` (the first argument): `lock` gets its mode's bundle (bin/lock-bundle.mjs), `serve` bin/serve-bundle.mjs's. */
export function currentCli(command?: string, args?: readonly string[]): Promise<URL>;
