// A worker thread's entry: TypeScript sources load through tsx, as bin/lockstep.mjs does for the main
// thread (a worker has its own module loader), then the worker proper starts.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
