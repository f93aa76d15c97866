// Entry point of the fence supervisor process (fence-supervisor.ts), started by supervisor-link.ts with
// an IPC channel to `lockstep lock`. It runs in a session of its own, so the terminal's signals reach
// lockstep, which forwards them; a signal sent to this process itself stops the command's group first.
import { FenceSupervisor } from './fence-supervisor.js';
import type { FromSupervisor } from './supervisor-protocol.js';

if (process.send === undefined) {
  process.stderr.write('lockstep fence supervisor: started without an IPC channel; it is started by `lockstep lock`, not by hand\n');
  process.exit(2);
}

const supervisor = new FenceSupervisor(
  {
    send: (message: FromSupervisor) =>
      new Promise<void>((sent) => {
        if (!process.connected || process.send === undefined) return sent();
        process.send(message, undefined, {}, () => sent());
      }),
    onMessage: (handler) => process.on('message', handler),
    onDisconnect: (handler) => process.once('disconnect', handler),
  },
  () => {
    // The last report is sent: closing the channel lets this process end.
    if (process.connected) process.disconnect();
  },
);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => supervisor.stop('supervisor-signalled'));
supervisor.start();
