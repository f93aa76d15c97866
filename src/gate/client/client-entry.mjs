// A gate client's process entry: TypeScript loads through tsx (as src/pause-test/holder-entry.mjs does),
// then the client proper waits for the gate's `start` on the IPC channel.
import { register } from 'tsx/esm/api';

register();
await import('./client-worker.ts');
