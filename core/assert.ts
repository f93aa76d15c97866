// Assertions in the TigerBeetle sense (STYLE.md: "Assertions catch programmer errors and crash the run;
// operating errors are handled"). An assertion states an invariant that only a bug in lockstep's own code
// (or in a LockLog adapter) can break: a failed one is not an outcome a caller can switch on, it is an
// AssertionError that fails the simulated run (sim/rpc/arbiter-rpc.ts lets it through) or the request.
// Never assert on what another process or the network did: a log that cannot be reached, a value some
// other writer put, an answer that came late. Those are typed LockErrors (core/lock-error.ts).

export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

/** Throws AssertionError when `condition` is false. `message` may be a function, so a hot path builds no text. */
export function assert(condition: boolean, message: string | (() => string)): asserts condition {
  if (!condition) throw new AssertionError(typeof message === 'string' ? message : message());
}
