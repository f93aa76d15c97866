// Declarations of bin/compile-cache.mjs for the TypeScript that imports it (its test).
export function requireWithCodeCache(file: string): { readonly exports: Record<string, unknown>; saveCache(): void };
