// Which module registers which top-level command (issue 16). The CLI loads only the module of the command
// it runs, so `lockstep class check` or `lockstep lock` does not pay for vite, d3, the simulator or DuckDB;
// --help, a bare `lockstep` and a misspelt command load them all (commander lists and suggests from the
// full program). src/command-table.test.ts checks each module registers exactly the names listed here.
import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';

export type RegisterCommands = (program: Command, io: CliIo, setExitCode: (code: number) => void) => void;

export interface CommandModule {
  /** The top-level command names the module registers. */
  readonly names: readonly string[];
  readonly load: () => Promise<RegisterCommands>;
}

// In the order `lockstep --help` lists them.
export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['class'], load: async () => (await import('./commands/class-check.js')).registerClassCommands },
  { names: ['check'], load: async () => (await import('./commands/check.js')).registerCheckCommand },
  { names: ['init'], load: async () => (await import('./commands/init.js')).registerInitCommand },
  { names: ['lock'], load: async () => (await import('./commands/lock.js')).registerLockCommand },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServeCommand },
  { names: ['health'], load: async () => (await import('./commands/health.js')).registerHealthCommand },
  { names: ['admin'], load: async () => (await import('./commands/admin.js')).registerAdminCommands },
  { names: ['pause-test'], load: async () => (await import('./commands/pause-test.js')).registerPauseTestCommand },
  { names: ['demo'], load: async () => (await import('./commands/demo.js')).registerDemoCommand },
  { names: ['bench'], load: async () => (await import('./commands/bench.js')).registerBenchCommand },
  { names: ['shards'], load: async () => (await import('./commands/shards.js')).registerShardsCommand },
  { names: ['ttl'], load: async () => (await import('./commands/ttl.js')).registerTtlCommand },
  { names: ['quorum'], load: async () => (await import('./commands/quorum.js')).registerQuorumCommand },
  { names: ['list', 'run', 'replay'], load: async () => (await import('./commands/run.js')).registerScenarioCommands },
  { names: ['gate'], load: async () => (await import('./commands/gate.js')).registerGateCommand },
  { names: ['explore'], load: async () => (await import('./commands/explore.js')).registerExploreCommand },
  { names: ['web'], load: async () => (await import('./commands/web.js')).registerWebCommand },
  { names: ['audit'], load: async () => (await import('./commands/audit.js')).registerAuditCommands },
];

/**
 * The modules a command line needs: the one that registers its first word, or none for `--version` (the
 * program answers it alone), or all of them when the first word names no command (help, a typo).
 */
export function modulesFor(argv: readonly string[]): readonly CommandModule[] {
  const first = argv[0];
  if (argv.length === 1 && (first === '--version' || first === '-V')) return [];
  const named = COMMAND_MODULES.find((m) => first !== undefined && m.names.includes(first));
  return named === undefined ? COMMAND_MODULES : [named];
}
