// The first holder's process entry: TypeScript loads through tsx (as bin/lockstep.mjs does), then the
// holder proper starts and waits for the kit's instructions on the IPC channel.
import { register } from 'tsx/esm/api';

register();
await import('./holder-worker.ts');
