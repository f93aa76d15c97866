// A measured holder's process entry (under tsx, as src/gate/client/client-entry.mjs): TypeScript loads
// through tsx, then the holder waits for the measurement's `start` on the IPC channel.
import { register } from 'tsx/esm/api';

register();
await import('./holder-worker.ts');
