import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';

// Placeholder: `lockstep lock` lands with the arbiter and the etcd adapter.
export function registerLockCommand(_program: Command, _io: CliIo, _setExitCode: (code: number) => void): void {}
