import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';

// Placeholder: `lockstep class check` lands with core/classes.
export function registerClassCommands(_program: Command, _io: CliIo, _setExitCode: (code: number) => void): void {}
