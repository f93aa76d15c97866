// The exit codes of `lockstep check`, for one file (check.ts) and for several (check-files.ts).

/** Exit codes of `lockstep check`; 3 means something else for `lockstep lock`, as each command documents. */
export const CheckExit = { ok: 0, violation: 1, badInput: 2, unknown: 3 } as const;
