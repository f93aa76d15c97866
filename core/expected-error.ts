// Expected outcomes thrown as errors (a refusal with a code, a cancelled wait) are control flow, not
// bugs: their code and message say what happened and where. The stack V8 captures for every Error is
// what costs (measured on this machine: ~27 µs for `new Error` with the default limit of 10 frames,
// ~1.2 µs with none), and the simulator throws these by the thousand (issue 16: ~5% of an explorer
// run's CPU). So their constructors capture no frames. `Error.stackTraceLimit` is V8's (node, Chromium);
// where it does not exist, setting it is harmless and it is removed again.

interface StackTraceLimited {
  stackTraceLimit?: number;
}

/** Call before `super(...)` in an expected error's constructor; pass what it returns to resumeStackTraces. */
export function suspendStackTraces(): number | undefined {
  const errors = Error as StackTraceLimited;
  const limit = errors.stackTraceLimit;
  errors.stackTraceLimit = 0;
  return limit;
}

/** Call right after `super(...)`, with what suspendStackTraces returned. */
export function resumeStackTraces(limit: number | undefined): void {
  const errors = Error as StackTraceLimited;
  if (limit === undefined) delete errors.stackTraceLimit;
  else errors.stackTraceLimit = limit;
}
