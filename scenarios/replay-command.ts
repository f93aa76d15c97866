// The command that replays a run from a terminal, in one format for every place that prints one: the
// artifact's own `replay` (scenarios/runner.ts) and the web workbench, which builds it from fields it
// has checked (src/web/replay-command.ts) and never copies an artifact's text (issue 18).

/**
 * `lockstep run NAME [--variant V] --seed S [--faults FILE]`: reruns a variant with its own fault schedule,
 * or with the schedule in `faultsFile`; the first variant is the default.
 */
export function runCommand(scenario: string, variant: string | undefined, seed: string, faultsFile?: string): string {
  return `lockstep run ${scenario}${variant === undefined ? '' : ` --variant ${variant}`} --seed ${seed}${faultsFile === undefined ? '' : ` --faults ${faultsFile}`}`;
}

/** `lockstep replay FILE`: reruns a saved artifact, its fault schedule included. */
export function replayFileCommand(path: string): string {
  return `lockstep replay ${path}`;
}
