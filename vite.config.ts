// The web workbench's build (issue 7): the app in src/web (index.html there), the simulator in a Web
// Worker as an ES module, written to dist/web with relative URLs (base './') so the files open from any
// path a server puts them under. `npm run build` and `lockstep web` both build with this file; the
// browser tests pass their own outDir on top of it.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const repoDir = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('./src/web', import.meta.url)),
  base: './',
  // The app imports core/, sim/, scenarios/, viz/ and examples/ from outside its root.
  server: { fs: { allow: [repoDir] } },
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The simulator is the bulk of the worker chunk; warn only well above its size.
    chunkSizeWarningLimit: 2_000,
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
