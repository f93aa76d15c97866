// Declarations of bin/serve-bundle.mjs for the TypeScript that imports it (its test).
/** The serve bundle, relative to dist/js. */
export const SERVE_BUNDLE: string;
/** Builds the serve bundle into `outDir`; the sources it runs from, relative to `root`. */
export function buildServeBundle(root: string, outDir: string): Promise<string[]>;
